//! Derived metrics from ncu counters.
