//! One latency histogram as text: HdrHistogram's compressed (V2 deflate) encoding in
//! base64, the form the interval log holds it in. Agents send their intervals'
//! histograms to the controller this way, so the controller adds them exactly.

use base64::Engine;
use hdrhistogram::Histogram;
use hdrhistogram::serialization::{Deserializer, Serializer, V2DeflateSerializer};

use crate::metrics::new_histogram;

/// Encodes `histogram`.
pub fn encode_histogram(histogram: &Histogram<u64>) -> String {
    let mut bytes = Vec::new();
    // Serializing into memory fails only on a histogram too large to encode, which the
    // fixed precision of every keystorm histogram rules out; an empty one stands in.
    if V2DeflateSerializer::new()
        .serialize(histogram, &mut bytes)
        .is_err()
    {
        bytes.clear();
        let _ = V2DeflateSerializer::new().serialize(&new_histogram(), &mut bytes);
    }
    base64::engine::general_purpose::STANDARD.encode(&bytes)
}

/// Decodes a histogram [`encode_histogram`] wrote; `None` for anything else.
pub fn decode_histogram(text: &str) -> Option<Histogram<u64>> {
    let bytes = base64::engine::general_purpose::STANDARD
        .decode(text.trim())
        .ok()?;
    let decoded: Histogram<u64> = Deserializer::new()
        .deserialize(&mut std::io::Cursor::new(bytes))
        .ok()?;
    // Re-recorded into keystorm's precision, so adding it to others cannot fail.
    let mut h = new_histogram();
    h.add(&decoded).ok()?;
    Some(h)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::metrics::Percentiles;

    #[test]
    fn a_histogram_comes_back_as_it_went() {
        let mut h = new_histogram();
        for v in [90, 1_000, 1_001, 25_000, 3_000_000] {
            h.record(v).unwrap();
        }
        let back = decode_histogram(&encode_histogram(&h)).unwrap();
        assert_eq!(back.len(), 5);
        assert_eq!(Percentiles::of(&back), Percentiles::of(&h));
        assert_eq!(back.max(), h.max());
    }

    #[test]
    fn anything_else_is_refused() {
        assert!(decode_histogram("").is_none());
        assert!(decode_histogram("not base64 !").is_none());
        assert!(decode_histogram("aGVsbG8gd29ybGQ=").is_none());
    }
}
