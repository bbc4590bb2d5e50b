//! Appending to a log after a crash: a process killed mid-write leaves a half line at
//! the end, which the next writer cuts off before it appends.

use std::fs::File;

/// Cuts a file back to just after its last line break, dropping a line a killed
/// process left half-written. Reads only the file's end.
pub(crate) fn cut_torn_line(file: &File) -> std::io::Result<()> {
    use std::os::unix::fs::FileExt;
    let len = file.metadata()?.len();
    let mut end = len;
    let mut buf = [0u8; 4096];
    while end > 0 {
        let start = end.saturating_sub(buf.len() as u64);
        let chunk = &mut buf[..(end - start) as usize];
        file.read_exact_at(chunk, start)?;
        if let Some(i) = memchr::memrchr(b'\n', chunk) {
            let keep = start + i as u64 + 1;
            if keep < len {
                file.set_len(keep)?;
            }
            return Ok(());
        }
        end = start;
    }
    if len > 0 {
        file.set_len(0)?;
    }
    Ok(())
}
