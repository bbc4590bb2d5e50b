//! `keystorm keys convert IN OUT`: a saved key file written out as an inventory
//! (Parquet, CSV or JSON lines) for the tools that read tables, with a one-line summary.

use std::path::Path;

use keystorm_engine::inventory::{self, ConvertError, Format};
use serde::Serialize;

use super::key_output::{KeyOutput, key_output};
use crate::CliError;
use crate::cli::{ConvertArgs, InventoryFormatArg, KeysArgs, KeysCommand};
use keystorm_console::exit;

/// What `--json` prints.
#[derive(Serialize)]
struct ConvertReport {
    input: String,
    output: String,
    format: &'static str,
    rows: u64,
    bytes: u64,
    seconds: f64,
}

pub async fn keys(args: &KeysArgs) -> Result<u8, CliError> {
    match &args.command {
        KeysCommand::Convert(args) => convert(args).await,
    }
}

async fn convert(args: &ConvertArgs) -> Result<u8, CliError> {
    let format = output_format(&args.output, args)?;
    let started = std::time::Instant::now();
    let (input, output) = (args.input.clone(), args.output.clone());
    let written = tokio::task::spawn_blocking(move || inventory::convert(&input, &output, format))
        .await
        .map_err(|e| CliError::failed(format!("the conversion stopped: {e}")))?
        .map_err(|e| match e {
            // A missing, damaged or unwritable file is the command line's to fix.
            ConvertError::Input(e) => CliError::bad_input(e.to_string()),
            ConvertError::Output(e) => CliError::bad_input(e.to_string()),
        })?;
    let report = ConvertReport {
        input: args.input.display().to_string(),
        output: args.output.display().to_string(),
        format: written.format.name(),
        rows: written.rows,
        bytes: written.bytes,
        seconds: started.elapsed().as_secs_f64(),
    };
    if args.json {
        let text =
            serde_json::to_string_pretty(&report).map_err(|e| CliError::failed(e.to_string()))?;
        stdoutln!("{text}");
    } else {
        stdoutln!(
            "wrote {} rows to {} ({}, {} bytes) in {:.2} s",
            report.rows,
            report.output,
            report.format,
            report.bytes,
            report.seconds
        );
    }
    Ok(exit::OK)
}

/// The inventory format OUT is written in: --format's, else its extension's (a key
/// file or an unknown one is refused).
fn output_format(output: &Path, args: &ConvertArgs) -> Result<Format, CliError> {
    if let Some(format) = args.format {
        return Ok(match format {
            InventoryFormatArg::Parquet => Format::Parquet,
            InventoryFormatArg::Csv => Format::Csv,
            InventoryFormatArg::Jsonl => Format::Jsonl,
        });
    }
    match key_output(output, None) {
        Some(KeyOutput::Table(format)) => Ok(format),
        Some(KeyOutput::KeyFile) => Err(CliError::bad_input(format!(
            "{} would be a key file: `keys convert` writes parquet, csv or jsonl",
            output.display()
        ))),
        None => Err(CliError::bad_input(format!(
            "cannot tell what to write {} as: name it .parquet, .csv or .jsonl, or pass \
             --format parquet|csv|jsonl",
            output.display()
        ))),
    }
}
