//! The names the controller keeps for itself in a run's folder of copies
//! (`<results>/.incoming/<run>/`): its record of the run and the two folders the
//! agents' copies go in. An agent never names a part after one of them.

/// The record of the run, beside the copies.
pub const RECORD_FILE: &str = "fleet-run.json";
/// The folder of the copies of the shards' folders.
pub const PARTS: &str = "parts";
/// The folder of the whole files being uploaded.
pub const UPLOADS: &str = "uploads";

/// Every name the controller keeps for itself in a run's folder: each, and each with a
/// suffix after a dot (`fleet-run.json.tmp`), is refused as a name an agent sends. A
/// file the controller comes to keep here is named in this list.
pub const CONTROLLER_NAMES: [&str; 3] = [RECORD_FILE, PARTS, UPLOADS];

/// Whether `name` is one the controller keeps for itself.
pub fn reserved(name: &str) -> bool {
    CONTROLLER_NAMES.iter().any(|own| {
        name.strip_prefix(own)
            .is_some_and(|rest| rest.is_empty() || rest.starts_with('.'))
    })
}
