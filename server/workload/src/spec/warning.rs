//! What validation allows but tells the user about, at its line and column.

/// Something allowed but worth telling the user (e.g. inline secrets).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SpecWarning {
    pub line: usize,
    pub column: usize,
    pub message: String,
}
