//! The error responses every operation shares, added to the OpenAPI document in one
//! place because the router adds their causes in one place: the JSON body extractor
//! (400, 413, 415, 422) on every call that takes a body, and checked parameters (400)
//! on every call that takes any, and the browser guard's 421 (a `Host` the server does
//! not answer to) on every call (the guards' 401 and 403 are added with the tokens, in
//! [`super::openapi_security`]). Without them the document would promise fewer status
//! codes than the server answers.

use utoipa::Modify;
use utoipa::openapi::path::Operation;
use utoipa::openapi::{ContentBuilder, OpenApi, Ref, RefOr, Response, ResponseBuilder};

pub struct SharedErrors;

impl Modify for SharedErrors {
    fn modify(&self, openapi: &mut OpenApi) {
        for_each_operation(openapi, |_, op, _| {
            add_input_errors(op);
            add_error(
                op,
                "421",
                "the request's `Host` is not a name this server answers to (see \
                 `serve --allowed-host`)",
            );
        });
    }
}

/// Calls `visit` with each operation of the document, its path and whether it changes
/// state (anything but GET, HEAD and OPTIONS).
pub fn for_each_operation(
    openapi: &mut OpenApi,
    mut visit: impl FnMut(&str, &mut Operation, bool),
) {
    for (path, item) in openapi.paths.paths.iter_mut() {
        let reads = [&mut item.get, &mut item.head, &mut item.options];
        for op in reads.into_iter().flatten() {
            visit(path, op, false);
        }
        let changing = [
            &mut item.post,
            &mut item.put,
            &mut item.patch,
            &mut item.delete,
        ];
        for op in changing.into_iter().flatten() {
            visit(path, op, true);
        }
    }
}

fn add_input_errors(op: &mut Operation) {
    let has_params = op.parameters.as_ref().is_some_and(|p| !p.is_empty());
    if op.request_body.is_some() {
        add_error(
            op,
            "400",
            "a parameter out of its format, a body that is not JSON, or a request the \
             server refuses (see `detail`)",
        );
        add_error(op, "413", "the body is over 1 MiB");
        add_error(
            op,
            "415",
            "the body is not `Content-Type: application/json`",
        );
        add_error(
            op,
            "422",
            "JSON of the wrong shape (a missing or unknown field, a wrong type), or a \
             workload that does not validate",
        );
    } else if has_params {
        add_error(
            op,
            "400",
            "a parameter out of its format, or a combination the server refuses (see `detail`)",
        );
    }
}

/// Adds an error response unless the operation documents that status itself.
pub fn add_error(op: &mut Operation, status: &str, description: &str) {
    op.responses
        .responses
        .entry(status.to_string())
        .or_insert_with(|| error_response(description));
}

fn error_response(description: &str) -> RefOr<Response> {
    ResponseBuilder::new()
        .description(description)
        .content(
            "application/json",
            ContentBuilder::new()
                .schema(Some(Ref::from_schema_name("ErrorBody")))
                .build(),
        )
        .build()
        .into()
}
