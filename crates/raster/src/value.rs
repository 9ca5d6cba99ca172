//! A float kept bit for bit: the pixel trace's values go through serde (JSON for scripts,
//! postcard to the page's worker) as their IEEE-754 bits, so NaN payloads, infinities and
//! signed zeros survive the trip unchanged.

use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// An `f32` compared and serialized by its bits.
#[derive(Clone, Copy, Default)]
pub struct Bits(pub f32);

/// Four [`Bits`]: one register value.
pub type Vec4 = [Bits; 4];

/// A register value as [`Vec4`].
pub fn vec4(v: [f32; 4]) -> Vec4 {
    v.map(Bits)
}

impl Bits {
    pub fn get(self) -> f32 {
        self.0
    }

    pub fn bits(self) -> u32 {
        self.0.to_bits()
    }
}

impl PartialEq for Bits {
    fn eq(&self, o: &Bits) -> bool {
        self.0.to_bits() == o.0.to_bits()
    }
}

impl Eq for Bits {}

impl std::fmt::Debug for Bits {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{:?}", self.0)
    }
}

impl Serialize for Bits {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_u32(self.0.to_bits())
    }
}

impl<'de> Deserialize<'de> for Bits {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Bits, D::Error> {
        u32::deserialize(d).map(|b| Bits(f32::from_bits(b)))
    }
}

/// An `f64` compared and serialized by its bits (the trace's geometry: window positions,
/// depths, 1/w and weights).
#[derive(Clone, Copy, Default)]
pub struct Bits64(pub f64);

impl Bits64 {
    pub fn get(self) -> f64 {
        self.0
    }
}

impl PartialEq for Bits64 {
    fn eq(&self, o: &Bits64) -> bool {
        self.0.to_bits() == o.0.to_bits()
    }
}

impl Eq for Bits64 {}

impl std::fmt::Debug for Bits64 {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{:?}", self.0)
    }
}

impl Serialize for Bits64 {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_u64(self.0.to_bits())
    }
}

impl<'de> Deserialize<'de> for Bits64 {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Bits64, D::Error> {
        u64::deserialize(d).map(|b| Bits64(f64::from_bits(b)))
    }
}
