//! Where a kernel's DRAM/ask falls, the answer an exercise asks for: above 1, near 1 or
//! below 1. "Near 1" is within 15 percent: 0.85 to 1.15, the bound the course sets for a
//! pure stream (a coalesced vector add measured 1.0922 on a T4, inside it). Used by the
//! predictions ([`super::predict`]) and by the explanations of their misses
//! ([`super::evidence`]).

/// The lowest DRAM/ask that counts as near 1.
pub const NEAR_LOW: f64 = 0.85;
/// The highest DRAM/ask that counts as near 1.
pub const NEAR_HIGH: f64 = 1.15;

/// Where DRAM/ask falls.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Direction {
    /// Above [`NEAR_HIGH`]: DRAM moved more than the kernel asks for.
    Above,
    /// From [`NEAR_LOW`] to [`NEAR_HIGH`], both included.
    Near,
    /// Below [`NEAR_LOW`]: the caches served part of what it asks for.
    Below,
}

impl Direction {
    /// The three, in the order a form offers them.
    pub const ALL: [Direction; 3] = [Direction::Above, Direction::Near, Direction::Below];

    /// The direction of a DRAM/ask ratio.
    pub fn of(dram_per_ask: f64) -> Direction {
        if dram_per_ask > NEAR_HIGH {
            Direction::Above
        } else if dram_per_ask < NEAR_LOW {
            Direction::Below
        } else {
            Direction::Near
        }
    }

    /// One letter for the URL: `a`, `n`, `b`.
    pub fn code(self) -> char {
        match self {
            Direction::Above => 'a',
            Direction::Near => 'n',
            Direction::Below => 'b',
        }
    }

    /// The inverse of [`Direction::code`].
    pub fn from_code(c: char) -> Option<Direction> {
        Direction::ALL.into_iter().find(|d| d.code() == c)
    }

    /// A label for people.
    pub fn label(self) -> &'static str {
        match self {
            Direction::Above => "above 1",
            Direction::Near => "near 1",
            Direction::Below => "below 1",
        }
    }

    /// The range it stands for, in words.
    pub fn range(self) -> String {
        match self {
            Direction::Above => format!("more than {NEAR_HIGH}"),
            Direction::Near => format!("{NEAR_LOW} to {NEAR_HIGH}"),
            Direction::Below => format!("less than {NEAR_LOW}"),
        }
    }
}
