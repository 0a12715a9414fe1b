//! The exit-code contract shared by every subcommand.

/// Success: valid, composable, call completed.
pub const OK: u8 = 0;
/// A finding: invalid document or card, not composable, or a draft error code.
pub const INVALID: u8 = 1;
/// Usage error, unreadable input, transport or protocol failure.
pub const USAGE: u8 = 2;
