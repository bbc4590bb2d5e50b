//! A value per entry of a chunk that most chunks never need (object bytes in size-only
//! mode, user metadata in most workloads): empty, costing nothing per entry, until the
//! chunk holds a first value; then one slot per entry, in entry order.

/// Slots beyond the entries kept when a column grows: an eighth, so a growing chunk
/// neither reallocates on every insert nor keeps half its capacity unused.
pub fn grow<T>(v: &mut Vec<T>, additional: usize) {
    if v.capacity() - v.len() < additional {
        v.reserve_exact(additional.max(v.len() / 8));
    }
}

/// Gives back capacity beyond an eighth over the length (after removals and splits).
pub fn trim<T>(v: &mut Vec<T>) {
    if v.capacity() > v.len() + v.len() / 8 + 4 {
        v.shrink_to(v.len() + v.len() / 8);
    }
}

#[derive(Debug)]
pub struct Column<T>(Vec<Option<T>>);

impl<T> Default for Column<T> {
    fn default() -> Self {
        Column(Vec::new())
    }
}

impl<T> Column<T> {
    pub fn get(&self, i: usize) -> Option<&T> {
        self.0.get(i)?.as_ref()
    }

    /// Inserts the value of a new entry `i` of a chunk that had `entries` before.
    pub fn insert(&mut self, i: usize, entries: usize, value: Option<T>) {
        if value.is_none() && self.0.is_empty() {
            return;
        }
        if self.0.is_empty() {
            self.0.reserve_exact(entries + 1);
            self.0.resize_with(entries, || None);
        }
        grow(&mut self.0, 1);
        self.0.insert(i, value);
    }

    /// Sets the value of entry `i` of a chunk of `entries`; returns the old one.
    pub fn replace(&mut self, i: usize, entries: usize, value: Option<T>) -> Option<T> {
        if self.0.is_empty() {
            // Nothing to replace, and nothing to keep: the column stays empty.
            value.as_ref()?;
            self.0.reserve_exact(entries);
            self.0.resize_with(entries, || None);
        }
        let old = std::mem::replace(&mut self.0[i], value);
        if old.is_some() {
            self.drop_if_unused();
        }
        old
    }

    pub fn remove(&mut self, i: usize) -> Option<T> {
        if self.0.is_empty() {
            return None;
        }
        let old = self.0.remove(i);
        if old.is_some() {
            self.drop_if_unused();
        }
        trim(&mut self.0);
        old
    }

    /// Entries `at..` moved out into a column of their own.
    pub fn split_off(&mut self, at: usize) -> Column<T> {
        if self.0.is_empty() {
            return Column::default();
        }
        let mut tail = Column(self.0.split_off(at));
        self.drop_if_unused();
        trim(&mut self.0);
        tail.drop_if_unused();
        tail
    }

    /// Appends `other`'s values after this chunk's `entries` (`other` has `theirs`).
    pub fn append(&mut self, entries: usize, mut other: Column<T>, theirs: usize) {
        match (self.0.is_empty(), other.0.is_empty()) {
            (_, true) if !self.0.is_empty() => {
                grow(&mut self.0, theirs);
                self.0.resize_with(entries + theirs, || None);
            }
            (_, true) => {}
            (true, false) => {
                self.0.reserve_exact(entries + theirs);
                self.0.resize_with(entries, || None);
                self.0.append(&mut other.0);
            }
            (false, false) => {
                grow(&mut self.0, theirs);
                self.0.append(&mut other.0);
            }
        }
    }

    /// Heap bytes held (capacity included).
    pub fn heap_bytes(&self) -> usize {
        self.0.capacity() * std::mem::size_of::<Option<T>>()
    }

    /// Back to no slots at all once no entry has a value.
    fn drop_if_unused(&mut self) {
        if self.0.iter().all(Option::is_none) {
            self.0 = Vec::new();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_column_takes_no_room_until_it_holds_a_value() {
        let mut c: Column<u32> = Column::default();
        c.insert(0, 0, None);
        c.insert(1, 1, None);
        assert_eq!(c.heap_bytes(), 0);
        c.insert(1, 2, Some(7));
        assert_eq!((c.get(0), c.get(1), c.get(2)), (None, Some(&7), None));
        let tail = c.split_off(1);
        assert_eq!(c.heap_bytes(), 0, "the head has no values left");
        assert_eq!(tail.get(0), Some(&7));
        c.append(1, tail, 2);
        assert_eq!((c.get(0), c.get(1), c.get(2)), (None, Some(&7), None));
        assert_eq!(c.replace(1, 3, None), Some(7));
        assert_eq!(c.heap_bytes(), 0);
        assert_eq!(c.replace(2, 3, Some(9)), None);
        assert_eq!(c.remove(0), None);
        assert_eq!(c.get(1), Some(&9));
        assert_eq!(c.remove(1), Some(9));
        assert_eq!(c.heap_bytes(), 0);
    }
}
