//! The players the engine protocol drives and the web app and `oware play` use, and
//! the game review beside them: [`MctsSearcher`] (the network's MCTS as an
//! [`EngineSearcher`](crate::engine::EngineSearcher)), the play [`Level`]s, and
//! [`analysis`], which reviews a game with the same searches.

pub mod analysis;
pub mod level;
pub mod mcts;

pub use level::Level;
pub use mcts::MctsSearcher;
