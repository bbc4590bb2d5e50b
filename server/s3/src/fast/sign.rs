//! SigV4 signing with AWS's own `aws-sigv4` crate, set up the way S3 expects:
//! single percent-encoding, no path normalisation, and `x-amz-content-sha256` carrying
//! either UNSIGNED-PAYLOAD or the body's SHA-256.

use std::time::SystemTime;

use aws_sigv4::http_request::{
    PayloadChecksumKind, PercentEncodingMode, SignableBody, SignableRequest, SigningSettings,
    UriPathNormalizationMode, sign,
};
use aws_sigv4::sign::v4;
use aws_smithy_runtime_api::client::identity::Identity;
use sha2::{Digest, Sha256};

use crate::payload::Payload;

pub struct Signer {
    identity: Identity,
    region: String,
    settings: SigningSettings,
    payload_signing: bool,
}

impl Signer {
    pub fn new(
        credentials: &keystorm_types::Credentials,
        region: &str,
        payload_signing: bool,
    ) -> Signer {
        let creds = aws_credential_types::Credentials::new(
            credentials.access_key_id.clone(),
            credentials.secret_access_key.clone(),
            credentials.session_token.clone(),
            None,
            "keystorm",
        );
        let mut settings = SigningSettings::default();
        settings.payload_checksum_kind = PayloadChecksumKind::XAmzSha256;
        settings.percent_encoding_mode = PercentEncodingMode::Single;
        settings.uri_path_normalization_mode = UriPathNormalizationMode::Disabled;
        Signer {
            identity: creds.into(),
            region: region.to_string(),
            settings,
            payload_signing,
        }
    }

    /// The SHA-256 of `body` in hex where payloads are signed (read slice by slice,
    /// never whole), for [`Signer::sign`].
    pub fn payload_hash(&self, body: &Payload) -> Option<String> {
        self.payload_signing.then(|| {
            let mut sha = Sha256::new();
            for segment in body.view().segments() {
                sha.update(segment);
            }
            hex::encode(sha.finalize())
        })
    }

    /// Adds the signature headers to `request`, whose body has the SHA-256
    /// `payload_hash` (from [`Signer::payload_hash`]; `None`: unsigned).
    pub fn sign<B>(
        &self,
        request: &mut http::Request<B>,
        payload_hash: Option<String>,
    ) -> Result<(), SignError> {
        let signable_body = match payload_hash {
            Some(hash) => SignableBody::Precomputed(hash),
            None => SignableBody::UnsignedPayload,
        };
        let params = v4::SigningParams::builder()
            .identity(&self.identity)
            .region(&self.region)
            .name("s3")
            .time(SystemTime::now())
            .settings(self.settings.clone())
            .build()
            .map_err(SignError::new)?
            .into();
        let uri = request.uri().to_string();
        let headers = request
            .headers()
            .iter()
            .filter_map(|(k, v)| Some((k.as_str(), v.to_str().ok()?)));
        let signable = SignableRequest::new(request.method().as_str(), uri, headers, signable_body)
            .map_err(SignError::new)?;
        let (instructions, _) = sign(signable, &params)
            .map_err(SignError::new)?
            .into_parts();
        for (name, value) in instructions.headers() {
            let value = http::HeaderValue::from_str(value).map_err(SignError::new)?;
            request.headers_mut().insert(
                http::HeaderName::from_bytes(name.as_bytes()).map_err(SignError::new)?,
                value,
            );
        }
        Ok(())
    }
}

/// A request that could not be signed (a header SigV4 cannot carry, bad parameters).
#[derive(Debug, thiserror::Error)]
#[error("signing: {0}")]
pub struct SignError(Box<dyn std::error::Error + Send + Sync>);

impl SignError {
    fn new(e: impl Into<Box<dyn std::error::Error + Send + Sync>>) -> SignError {
        SignError(e.into())
    }
}
