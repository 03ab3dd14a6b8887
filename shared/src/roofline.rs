//! Roofline math: theoretical peaks from device attributes, attainable performance, bound.
