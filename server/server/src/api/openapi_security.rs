//! The tokens in the OpenAPI document: the two bearer schemes, which of them opens
//! each operation, and the 401 and 403 answers of the guards in front of them. Added
//! in one place, as the router puts the guards in one place (see [`super::security`]).

use utoipa::Modify;
use utoipa::openapi::OpenApi;
use utoipa::openapi::path::Operation;
use utoipa::openapi::security::{HttpAuthScheme, HttpBuilder, SecurityRequirement, SecurityScheme};

use super::openapi_errors::{add_error, for_each_operation};
use super::security::is_agent_link;

/// Name of the full token's scheme in the document.
const TOKEN: &str = "token";
/// Name of the read-only token's scheme.
const READ_TOKEN: &str = "read_token";

pub struct TokenSecurity;

impl Modify for TokenSecurity {
    fn modify(&self, openapi: &mut OpenApi) {
        let components = openapi.components.get_or_insert_with(Default::default);
        components.add_security_scheme(
            TOKEN,
            scheme(
                "The server's token (`keystorm serve --token` or KEYSTORM_TOKEN): needed on \
                 every call when the server has one, which it always has off loopback; it \
                 opens everything. On loopback without a token every call is open.",
            ),
        );
        components.add_security_scheme(
            READ_TOKEN,
            scheme(
                "The read-only token (`--read-token` or KEYSTORM_READ_TOKEN), beside the \
                 full one: it opens the reads (the event stream and /metrics too), not the \
                 calls that change state nor the agent link's.",
            ),
        );
        for_each_operation(openapi, |path, op, changes_state| {
            add_error(
                op,
                "401",
                "the server has a token and the call did not bring it (or a token of this \
                 server) as `Authorization: Bearer <token>`",
            );
            if changes_state {
                needs(op, &[TOKEN]);
                add_error(
                    op,
                    "403",
                    "the read-only token (it opens reads only), or a cross-site browser \
                     request (`Sec-Fetch-Site`, or an `Origin` other than this server's own)",
                );
            } else if is_agent_link(path) {
                needs(op, &[TOKEN]);
                add_error(
                    op,
                    "403",
                    "the read-only token: the agent link needs the server's full token",
                );
            } else {
                needs(op, &[TOKEN, READ_TOKEN]);
            }
        });
    }
}

fn scheme(description: &str) -> SecurityScheme {
    SecurityScheme::Http(
        HttpBuilder::new()
            .scheme(HttpAuthScheme::Bearer)
            .description(Some(description))
            .build(),
    )
}

/// Any one of `schemes` opens the operation.
fn needs(op: &mut Operation, schemes: &[&str]) {
    op.security = Some(
        schemes
            .iter()
            .map(|s| SecurityRequirement::new(*s, Vec::<String>::new()))
            .collect(),
    );
}
