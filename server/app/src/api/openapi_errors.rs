//! The error responses every operation shares, added to the OpenAPI document in one
//! place because the router adds their causes in one place: the security guard (401,
//! 403) in front of every call that changes state, the JSON body extractor (400, 413,
//! 415, 422) on every call that takes a body, and checked parameters (400) on every
//! call that takes any. Without them the document would promise fewer status codes
//! than the server answers.

use utoipa::Modify;
use utoipa::openapi::path::Operation;
use utoipa::openapi::{ContentBuilder, OpenApi, Ref, RefOr, Response, ResponseBuilder};

pub struct SharedErrors;

impl Modify for SharedErrors {
    fn modify(&self, openapi: &mut OpenApi) {
        for item in openapi.paths.paths.values_mut() {
            let read_only = [&mut item.get, &mut item.head, &mut item.options];
            for op in read_only.into_iter().flatten() {
                add_input_errors(op);
            }
            let changing = [
                &mut item.post,
                &mut item.put,
                &mut item.patch,
                &mut item.delete,
            ];
            for op in changing.into_iter().flatten() {
                add_input_errors(op);
                add(
                    op,
                    "401",
                    "the server has a token and the call did not bring it as \
                     `Authorization: Bearer <token>`",
                );
                add(
                    op,
                    "403",
                    "a cross-site browser request (`Sec-Fetch-Site`, or `Origin` against `Host`)",
                );
            }
        }
    }
}

fn add_input_errors(op: &mut Operation) {
    let has_params = op.parameters.as_ref().is_some_and(|p| !p.is_empty());
    if op.request_body.is_some() {
        add(
            op,
            "400",
            "a parameter out of its format, a body that is not JSON, or a request the \
             server refuses (see `detail`)",
        );
        add(op, "413", "the body is over 1 MiB");
        add(
            op,
            "415",
            "the body is not `Content-Type: application/json`",
        );
        add(
            op,
            "422",
            "JSON of the wrong shape (a missing or unknown field, a wrong type), or a \
             workload that does not validate",
        );
    } else if has_params {
        add(
            op,
            "400",
            "a parameter out of its format, or a combination the server refuses (see `detail`)",
        );
    }
}

/// Adds an error response unless the operation documents that status itself.
fn add(op: &mut Operation, status: &str, description: &str) {
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
