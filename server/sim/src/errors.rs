//! S3 error responses: the code, its HTTP status, and the XML body S3 sends.

use http::StatusCode;

use crate::xml::escape;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum S3Error {
    NoSuchKey,
    NoSuchBucket,
    BucketAlreadyOwnedByYou,
    BucketNotEmpty,
    InvalidRange,
    InvalidArgument,
    InvalidBucketName,
    MalformedXml,
    NotImplemented,
    AccessDenied,
    SignatureDoesNotMatch,
    InvalidAccessKeyId,
    SlowDown,
    InternalError,
    KeyTooLongError,
    NoSuchUpload,
    InvalidPart,
    InvalidPartOrder,
    EntityTooSmall,
    /// A write past the target's memory budget.
    InsufficientStorage,
    /// A PUT or a part without a Content-Length (or a chunked encoding's length).
    MissingContentLength,
}

impl S3Error {
    pub fn code(self) -> &'static str {
        match self {
            S3Error::NoSuchKey => "NoSuchKey",
            S3Error::NoSuchBucket => "NoSuchBucket",
            S3Error::BucketAlreadyOwnedByYou => "BucketAlreadyOwnedByYou",
            S3Error::BucketNotEmpty => "BucketNotEmpty",
            S3Error::InvalidRange => "InvalidRange",
            S3Error::InvalidArgument => "InvalidArgument",
            S3Error::InvalidBucketName => "InvalidBucketName",
            S3Error::MalformedXml => "MalformedXML",
            S3Error::NotImplemented => "NotImplemented",
            S3Error::AccessDenied => "AccessDenied",
            S3Error::SignatureDoesNotMatch => "SignatureDoesNotMatch",
            S3Error::InvalidAccessKeyId => "InvalidAccessKeyId",
            S3Error::SlowDown => "SlowDown",
            S3Error::InternalError => "InternalError",
            S3Error::KeyTooLongError => "KeyTooLongError",
            S3Error::NoSuchUpload => "NoSuchUpload",
            S3Error::InvalidPart => "InvalidPart",
            S3Error::InvalidPartOrder => "InvalidPartOrder",
            S3Error::EntityTooSmall => "EntityTooSmall",
            S3Error::InsufficientStorage => "InsufficientStorage",
            S3Error::MissingContentLength => "MissingContentLength",
        }
    }

    pub fn status(self) -> StatusCode {
        match self {
            S3Error::NoSuchKey | S3Error::NoSuchBucket => StatusCode::NOT_FOUND,
            S3Error::BucketAlreadyOwnedByYou | S3Error::BucketNotEmpty => StatusCode::CONFLICT,
            S3Error::InvalidRange => StatusCode::RANGE_NOT_SATISFIABLE,
            S3Error::InvalidArgument | S3Error::InvalidBucketName | S3Error::MalformedXml => {
                StatusCode::BAD_REQUEST
            }
            S3Error::NotImplemented => StatusCode::NOT_IMPLEMENTED,
            S3Error::AccessDenied
            | S3Error::SignatureDoesNotMatch
            | S3Error::InvalidAccessKeyId => StatusCode::FORBIDDEN,
            S3Error::SlowDown => StatusCode::SERVICE_UNAVAILABLE,
            S3Error::InternalError => StatusCode::INTERNAL_SERVER_ERROR,
            S3Error::KeyTooLongError
            | S3Error::InvalidPart
            | S3Error::InvalidPartOrder
            | S3Error::EntityTooSmall => StatusCode::BAD_REQUEST,
            S3Error::NoSuchUpload => StatusCode::NOT_FOUND,
            S3Error::InsufficientStorage => StatusCode::INSUFFICIENT_STORAGE,
            S3Error::MissingContentLength => StatusCode::LENGTH_REQUIRED,
        }
    }

    pub fn default_message(self) -> &'static str {
        match self {
            S3Error::NoSuchKey => "The specified key does not exist.",
            S3Error::NoSuchBucket => "The specified bucket does not exist.",
            S3Error::BucketAlreadyOwnedByYou => {
                "Your previous request to create the named bucket succeeded and you already own it."
            }
            S3Error::BucketNotEmpty => "The bucket you tried to delete is not empty.",
            S3Error::InvalidRange => "The requested range is not satisfiable.",
            S3Error::InvalidArgument => "Invalid argument.",
            S3Error::InvalidBucketName => "The specified bucket is not valid.",
            S3Error::MalformedXml => "The XML you provided was not well-formed.",
            S3Error::NotImplemented => "This operation is not implemented by the embedded target.",
            S3Error::AccessDenied => "Access Denied.",
            S3Error::SignatureDoesNotMatch => {
                "The request signature we calculated does not match the signature you provided."
            }
            S3Error::InvalidAccessKeyId => {
                "The access key Id you provided does not exist in our records."
            }
            S3Error::SlowDown => "Please reduce your request rate.",
            S3Error::InternalError => "We encountered an internal error. Please try again.",
            S3Error::KeyTooLongError => "Your key is too long",
            S3Error::NoSuchUpload => {
                "The specified multipart upload does not exist. The upload ID might be invalid, or the multipart upload might have been aborted or completed."
            }
            S3Error::InvalidPart => {
                "One or more of the specified parts could not be found or its entity tag did not match."
            }
            S3Error::InvalidPartOrder => "The list of parts was not in ascending order.",
            S3Error::EntityTooSmall => {
                "Your proposed upload is smaller than the minimum allowed object size."
            }
            S3Error::InsufficientStorage => "The target's memory budget is full.",
            S3Error::MissingContentLength => "You must provide the Content-Length HTTP header.",
        }
    }

    /// `<Error>` document.
    pub fn xml(self, message: &str, resource: &str, request_id: &str) -> String {
        format!(
            "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<Error><Code>{}</Code><Message>{}</Message><Resource>{}</Resource><RequestId>{}</RequestId></Error>",
            self.code(),
            escape(message),
            escape(resource),
            request_id
        )
    }
}
