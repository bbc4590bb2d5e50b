//! An object's content type and user metadata, shared by objects written alike, and
//! what the memory budget charges for them.

/// An object's content type and user metadata (names lower-case, without
/// `x-amz-meta-`). Objects written alike share one.
#[derive(Debug, PartialEq, Eq)]
pub struct Meta {
    pub content_type: Option<Box<str>>,
    pub user: Box<[(Box<str>, Box<str>)]>,
}

impl Meta {
    /// What the budget charges for it besides its fixed overhead (see [`meta_len`]).
    pub fn charged_len(&self) -> usize {
        meta_len(self.content_type.as_deref(), &self.user).unwrap_or(0)
    }
}

/// What the budget charges for a content type and user metadata besides their fixed
/// overhead: their text and each user pair's slot; `None` when there are none (the
/// object then keeps no metadata at all).
pub fn meta_len(content_type: Option<&str>, user: &[(Box<str>, Box<str>)]) -> Option<usize> {
    if content_type.is_none() && user.is_empty() {
        return None;
    }
    let pair = std::mem::size_of::<(Box<str>, Box<str>)>();
    Some(
        content_type.map_or(0, str::len)
            + user
                .iter()
                .map(|(k, v)| pair + k.len() + v.len())
                .sum::<usize>(),
    )
}
