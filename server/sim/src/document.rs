//! Why an XML document a client sent (a `<Delete>` or `<CompleteMultipartUpload>`) is
//! not one the target accepts; answered as MalformedXML with this message.

#[derive(Debug, thiserror::Error)]
pub enum DocumentError {
    #[error("bad XML: {0}")]
    Xml(#[from] quick_xml::Error),
    #[error("bad XML text: {0}")]
    Text(#[from] quick_xml::encoding::EncodingError),
    #[error("unknown entity &{0};")]
    Entity(String),
    #[error("DeleteObjects takes at most 1000 keys")]
    TooManyKeys,
    #[error("bad PartNumber {0:?}")]
    PartNumber(String),
    #[error("a Part needs a PartNumber and an ETag")]
    IncompletePart,
}
