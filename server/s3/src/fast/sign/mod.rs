//! SigV4 signing the way S3 expects (single percent-encoding, no path normalisation,
//! `x-amz-content-sha256` carrying UNSIGNED-PAYLOAD or the body's SHA-256), written for
//! the hot path: the day's signing key is derived once and kept, the canonical request
//! is hashed as it is written rather than built as a string, and nothing is parsed
//! back. A test holds every header it writes equal to AWS's own `aws-sigv4`.

mod amz_date;
mod canonical;
#[cfg(test)]
mod parity;

use std::sync::Mutex;
use std::time::SystemTime;

use hmac::{Hmac, Mac};
use http::HeaderValue;
use sha2::{Digest, Sha256};

use crate::payload::Payload;
use amz_date::AmzDate;
pub(crate) use canonical::host_of;

type HmacSha256 = Hmac<Sha256>;

/// The payload hash S3 accepts for a body that is not signed.
const UNSIGNED_PAYLOAD: &str = "UNSIGNED-PAYLOAD";

pub struct Signer {
    access_key_id: String,
    secret_access_key: String,
    session_token: Option<HeaderValue>,
    region: String,
    payload_signing: bool,
    /// The signing key of one day (`YYYYMMDD`), keyed into an HMAC ready to clone.
    day_key: Mutex<Option<([u8; 8], HmacSha256)>>,
}

impl Signer {
    pub fn new(
        credentials: &keystorm_types::Credentials,
        region: &str,
        payload_signing: bool,
    ) -> Signer {
        let session_token = credentials.session_token.as_deref().and_then(|t| {
            let mut value = HeaderValue::from_str(t).ok()?;
            value.set_sensitive(true);
            Some(value)
        });
        Signer {
            access_key_id: credentials.access_key_id.clone(),
            secret_access_key: credentials.secret_access_key.clone(),
            session_token,
            region: region.to_string(),
            payload_signing,
            day_key: Mutex::new(None),
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
        self.sign_at(request, payload_hash, SystemTime::now())
    }

    fn sign_at<B>(
        &self,
        request: &mut http::Request<B>,
        payload_hash: Option<String>,
        time: SystemTime,
    ) -> Result<(), SignError> {
        let date = AmzDate::new(time);
        let payload_hash = payload_hash.as_deref().unwrap_or(UNSIGNED_PAYLOAD);
        let headers = request.headers_mut();
        headers.insert("x-amz-date", value(date.stamp())?);
        headers.insert("x-amz-content-sha256", value(payload_hash)?);
        if let Some(token) = &self.session_token {
            headers.insert("x-amz-security-token", token.clone());
        }
        let canonical = canonical::canonical(
            request.method(),
            request.uri(),
            request.headers(),
            payload_hash,
        );
        let mut mac = self.day_key(date.date())?;
        for piece in [
            "AWS4-HMAC-SHA256\n",
            date.stamp(),
            "\n",
            date.date(),
            "/",
            &self.region,
            "/s3/aws4_request\n",
        ] {
            mac.update(piece.as_bytes());
        }
        mac.update(&canonical.hash);
        let mut signature = [0u8; 64];
        // 32 bytes into 64 hex digits.
        let _ = hex::encode_to_slice(mac.finalize().into_bytes(), &mut signature);
        let mut authorization = String::with_capacity(
            160 + self.access_key_id.len() + self.region.len() + canonical.signed_headers.len(),
        );
        for piece in [
            "AWS4-HMAC-SHA256 Credential=",
            &self.access_key_id,
            "/",
            date.date(),
            "/",
            &self.region,
            "/s3/aws4_request, SignedHeaders=",
            &canonical.signed_headers,
            ", Signature=",
            std::str::from_utf8(&signature).unwrap_or_default(),
        ] {
            authorization.push_str(piece);
        }
        let mut authorization = HeaderValue::try_from(authorization).map_err(SignError::new)?;
        authorization.set_sensitive(true);
        request
            .headers_mut()
            .insert(http::header::AUTHORIZATION, authorization);
        Ok(())
    }

    /// An HMAC keyed with the signing key of `date` (`YYYYMMDD`), derived from the
    /// secret the first time the day is seen and kept until the next.
    fn day_key(&self, date: &str) -> Result<HmacSha256, SignError> {
        let day: [u8; 8] = date.as_bytes().try_into().map_err(SignError::new)?;
        let mut kept = self.day_key.lock().unwrap_or_else(|e| e.into_inner());
        if let Some((kept_day, mac)) = kept.as_ref()
            && *kept_day == day
        {
            return Ok(mac.clone());
        }
        let secret = format!("AWS4{}", self.secret_access_key);
        let mut key = hmac(secret.as_bytes(), date.as_bytes())?;
        for part in [self.region.as_str(), "s3", "aws4_request"] {
            key = hmac(&key, part.as_bytes())?;
        }
        let mac = HmacSha256::new_from_slice(&key).map_err(SignError::new)?;
        *kept = Some((day, mac.clone()));
        Ok(mac)
    }
}

fn hmac(key: &[u8], data: &[u8]) -> Result<[u8; 32], SignError> {
    let mut mac = HmacSha256::new_from_slice(key).map_err(SignError::new)?;
    mac.update(data);
    Ok(mac.finalize().into_bytes().into())
}

fn value(text: &str) -> Result<HeaderValue, SignError> {
    HeaderValue::from_str(text).map_err(SignError::new)
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
