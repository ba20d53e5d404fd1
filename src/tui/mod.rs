//! The dashboard's terminal front end: the loop that reads samples and keys into
//! [`crate::app`]'s state and draws it with [`crate::ui`] ([`run`]), the screen it draws on
//! ([`screen`]), the terminal's modes and size ([`terminal`]), the signals that end or suspend it
//! ([`signals`]), and the few tty calls beneath them ([`tty`]).

pub mod run;
pub mod screen;
// The fleet view (`fleet::view`) runs its own loop on the same terminal machinery.
pub(crate) mod signals;
pub(crate) mod terminal;
pub(crate) mod tty;
