//! A key file converted into an inventory, row by row in key order: what a listing
//! saved once becomes a table without listing the bucket again.

use std::path::Path;

use super::error::InventoryError;
use super::format::Format;
use super::writer::{InventoryWriter, Written};
use crate::keyfile::{KeyFile, KeyFileError};

#[derive(Debug, thiserror::Error)]
pub enum ConvertError {
    /// The key file is missing, unreadable or not one.
    #[error(transparent)]
    Input(#[from] KeyFileError),
    #[error(transparent)]
    Output(#[from] InventoryError),
}

/// Writes every key of the key file at `input` into an inventory at `output`.
pub fn convert(input: &Path, output: &Path, format: Format) -> Result<Written, ConvertError> {
    let keys = KeyFile::open(input)?;
    let mut cursor = keys.cursor()?;
    let mut writer = InventoryWriter::create(output, format, false)?;
    for i in 0..keys.keys() {
        let Some(entry) = cursor.get(i)? else { break };
        writer.push(entry.clone().into())?;
    }
    Ok(writer.finish()?)
}
