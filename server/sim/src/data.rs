//! Object bytes as the target keeps them: one allocation of exactly the object's size,
//! shared by a reference count kept in an allocation of its own. Shared, so a GET sends
//! the bytes without copying them while the object may be replaced or deleted meanwhile;
//! apart, because a count in front of the bytes (as `Arc<[u8]>` keeps it) pushes an
//! object of a power-of-two size — 1 KiB, 4 KiB, the sizes benchmarks write — into the
//! allocator's next size class, a quarter larger (1 KiB then takes 1280 bytes).

use std::sync::Arc;

/// An object's bytes (or a multipart part's).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Data(Arc<Box<[u8]>>);

impl Data {
    /// `len` bytes written in place by `fill`, in one allocation of exactly `len`.
    pub fn filled(len: usize, fill: impl FnOnce(&mut [u8])) -> Data {
        let mut bytes = vec![0; len].into_boxed_slice();
        fill(&mut bytes);
        Data::from(bytes)
    }
}

impl From<Box<[u8]>> for Data {
    fn from(bytes: Box<[u8]>) -> Data {
        Data(Arc::new(bytes))
    }
}

/// Copies into an exactly-sized allocation (never keeps a larger buffer's capacity).
impl From<&[u8]> for Data {
    fn from(bytes: &[u8]) -> Data {
        Data::from(Box::<[u8]>::from(bytes))
    }
}

impl std::ops::Deref for Data {
    type Target = [u8];

    fn deref(&self) -> &[u8] {
        &self.0
    }
}

impl AsRef<[u8]> for Data {
    fn as_ref(&self) -> &[u8] {
        &self.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bytes_are_kept_exactly_and_shared_on_clone() {
        let d = Data::filled(5, |b| b.copy_from_slice(b"hello"));
        assert_eq!(&*d, b"hello");
        let e = d.clone();
        assert!(
            std::ptr::eq(d.as_ptr(), e.as_ptr()),
            "a clone shares the bytes"
        );
        assert_eq!(&*Data::from(b"abc".as_slice()), b"abc");
        assert_eq!(std::mem::size_of::<Option<Data>>(), 8);
    }
}
