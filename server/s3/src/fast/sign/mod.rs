//! SigV4 signing the way S3 expects (single percent-encoding, no path normalisation,
//! `x-amz-content-sha256` carrying UNSIGNED-PAYLOAD or the body's SHA-256), written for
//! the hot path: the day's signing key is derived once and kept, the canonical request
//! is hashed as it is written rather than built as a string, and nothing is parsed
//! back. A test holds every header it writes equal to AWS's own `aws-sigv4`.

mod amz_date;
mod canonical;
mod outgoing;
#[cfg(test)]
mod parity;

use std::sync::Mutex;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use hmac::{Hmac, Mac};
use http::HeaderValue;
use sha2::{Digest, Sha256};

use super::clock_pair;
use crate::payload::Payload;
use amz_date::AmzDate;
pub(crate) use canonical::host_of;
pub use outgoing::Outgoing;

type HmacSha256 = Hmac<Sha256>;

/// The payload hash S3 accepts for a body that is not signed.
const UNSIGNED_PAYLOAD: &str = "UNSIGNED-PAYLOAD";

/// How long a reading of the wall clock serves to date signatures, which are to the
/// second and accepted within minutes of the store's clock.
const SIGNING_CLOCK_REUSE: Duration = Duration::from_secs(1);

/// The headers a signature adds.
const ADDED: [&str; 4] = [
    "x-amz-date",
    "x-amz-content-sha256",
    "x-amz-security-token",
    "authorization",
];

pub struct Signer {
    access_key_id: String,
    secret_access_key: String,
    session_token: Option<String>,
    region: String,
    payload_signing: bool,
    /// The signing key of one day (`YYYYMMDD`), keyed into an HMAC ready to clone.
    day_key: Mutex<Option<([u8; 8], HmacSha256)>>,
}

/// The headers a signature adds to a request: its time, its payload hash, the session
/// token (if any) and the authorization.
pub struct Signed<'s> {
    date: AmzDate,
    payload_hash: Option<String>,
    session_token: Option<&'s str>,
    authorization: String,
}

impl Signed<'_> {
    /// The added headers, names lower-case, in the order they are written.
    pub fn headers(&self) -> impl Iterator<Item = (&'static str, &str)> {
        [
            Some(("x-amz-date", self.date.stamp())),
            Some(("x-amz-content-sha256", self.payload_hash())),
            self.session_token.map(|t| ("x-amz-security-token", t)),
            Some(("authorization", self.authorization.as_str())),
        ]
        .into_iter()
        .flatten()
    }

    fn payload_hash(&self) -> &str {
        self.payload_hash.as_deref().unwrap_or(UNSIGNED_PAYLOAD)
    }
}

impl Signer {
    pub fn new(
        credentials: &keystorm_types::Credentials,
        region: &str,
        payload_signing: bool,
    ) -> Signer {
        // A token a header cannot carry is not sent (the store then refuses the keys).
        let session_token = credentials
            .session_token
            .clone()
            .filter(|t| HeaderValue::from_str(t).is_ok());
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
        let uri = request.uri();
        let target = match uri.path_and_query().map(|p| p.as_str()) {
            None | Some("") => "/",
            Some(p) => p,
        };
        let host = host_of(uri);
        // The signature's own headers are replaced, not repeated; a value that is not
        // text cannot be put in the canonical request and goes unsigned.
        let headers: Vec<(&str, &str)> = request
            .headers()
            .iter()
            .filter(|(k, _)| !ADDED.contains(&k.as_str()))
            .filter_map(|(k, v)| Some((k.as_str(), v.to_str().ok()?)))
            .collect();
        let outgoing = Outgoing {
            method: request.method().as_str(),
            target,
            host: &host,
            headers: &headers,
        };
        let signed = self.sign_outgoing_at(&outgoing, payload_hash, time)?;
        let mut added = Vec::with_capacity(4);
        for (name, text) in signed.headers() {
            let mut value = value(text)?;
            value.set_sensitive(name == "authorization" || name == "x-amz-security-token");
            added.push((http::HeaderName::from_static(name), value));
        }
        let headers = request.headers_mut();
        for (name, value) in added {
            headers.insert(name, value);
        }
        Ok(())
    }

    /// The signature of `request`, whose body has the SHA-256 `payload_hash`, sent at
    /// `at` (a recent instant: the request's start, which its caller has read already;
    /// the wall clock's second is taken from it, see [`clock_pair`]).
    pub fn sign_outgoing(
        &self,
        request: &Outgoing<'_>,
        payload_hash: Option<String>,
        at: Instant,
    ) -> Result<Signed<'_>, SignError> {
        let wall = clock_pair::wall_at(at, SIGNING_CLOCK_REUSE);
        self.sign_outgoing_at(request, payload_hash, UNIX_EPOCH + wall)
    }

    fn sign_outgoing_at(
        &self,
        request: &Outgoing<'_>,
        payload_hash: Option<String>,
        time: SystemTime,
    ) -> Result<Signed<'_>, SignError> {
        let mut signed = Signed {
            date: AmzDate::new(time),
            payload_hash,
            session_token: self.session_token.as_deref(),
            authorization: String::new(),
        };
        let date = signed.date;
        // The authorization up to its signed headers' names, which the canonical
        // request writes as it hashes them; then the signature of that hash.
        let mut authorization = String::with_capacity(
            200 + self.access_key_id.len() + self.region.len() + 16 * request.headers.len(),
        );
        for piece in [
            "AWS4-HMAC-SHA256 Credential=",
            &self.access_key_id,
            "/",
            date.date(),
            "/",
            &self.region,
            "/s3/aws4_request, SignedHeaders=",
        ] {
            authorization.push_str(piece);
        }
        let hash = canonical::canonical(
            request,
            signed.headers(),
            signed.payload_hash(),
            &mut authorization,
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
        mac.update(&hash);
        let mut signature = [0u8; 64];
        // 32 bytes into 64 hex digits.
        let _ = hex::encode_to_slice(mac.finalize().into_bytes(), &mut signature);
        authorization.push_str(", Signature=");
        authorization.push_str(std::str::from_utf8(&signature).unwrap_or_default());
        signed.authorization = authorization;
        Ok(signed)
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
