//! The thin I/O loop every screen runs on: keys, a feed (a table stream, a ticket),
//! replies of the requests the screen made, and a clock tick, all turned into calls
//! of an [`App`], whose frame is then drawn. The app itself does no I/O: it returns
//! requests, which the loop performs in tasks so the screen never freezes.
//!
//! [`run_controlled`] also takes orders from the command running the screen
//! ([`Control`]): a notice to show, or stop (a tournament moving its player on).

use std::time::Duration;

use crossterm::event::{Event, EventStream, KeyEvent, KeyEventKind};
use futures::StreamExt;
use futures::future::BoxFuture;
use tokio::sync::mpsc;

use super::term::{Frame, Terminal};

/// A screen's state and behaviour, without I/O.
pub trait App {
    /// What arrives by itself (stream items, ticket updates).
    type Feed: Send + 'static;
    /// Something to ask a server.
    type Request: Send + 'static;
    /// Its answer.
    type Reply: Send + 'static;

    /// A feed item arrived.
    fn on_feed(&mut self, feed: Self::Feed, now_ms: i64) -> Vec<Self::Request>;
    /// The feed ended (its sender is gone).
    fn on_feed_end(&mut self, _now_ms: i64) {}
    /// A request was answered.
    fn on_reply(&mut self, reply: Self::Reply, now_ms: i64) -> Vec<Self::Request>;
    /// A key was pressed.
    fn on_key(&mut self, key: KeyEvent, now_ms: i64) -> Vec<Self::Request>;
    /// The command running the screen has something to tell the player.
    fn on_notice(&mut self, _text: String, _now_ms: i64) {}
    /// The screen at `now_ms` for a terminal of `width` columns and `height` rows.
    fn frame(&self, now_ms: i64, width: u16, height: u16) -> Frame;
    /// Whether the screen is done (the loop returns).
    fn finished(&self) -> bool;
}

/// The local clock, Unix ms.
pub fn now_ms() -> i64 {
    chrono::Utc::now().timestamp_millis()
}

/// How often the screen is redrawn without input (running clocks, spinners).
const TICK: Duration = Duration::from_millis(200);

/// What the command running a screen tells it from outside the screen.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Control {
    /// Show this to the player ([`App::on_notice`]).
    Notice(String),
    /// Close the screen now.
    Stop,
}

/// Runs `app` on `terminal` until it is finished or the keyboard goes away.
pub async fn run<A, P>(
    terminal: &mut Terminal,
    keys: &mut EventStream,
    app: &mut A,
    feed: mpsc::Receiver<A::Feed>,
    perform: P,
) -> std::io::Result<()>
where
    A: App,
    P: Fn(A::Request) -> BoxFuture<'static, A::Reply>,
{
    let (_no_orders, control) = mpsc::channel(1);
    run_controlled(terminal, keys, app, feed, perform, control)
        .await
        .map(|_| ())
}

/// Runs `app` on `terminal` until it is finished, the keyboard goes away or `control`
/// says stop; whether it was stopped.
pub async fn run_controlled<A, P>(
    terminal: &mut Terminal,
    keys: &mut EventStream,
    app: &mut A,
    mut feed: mpsc::Receiver<A::Feed>,
    perform: P,
    mut control: mpsc::Receiver<Control>,
) -> std::io::Result<bool>
where
    A: App,
    P: Fn(A::Request) -> BoxFuture<'static, A::Reply>,
{
    let (reply_tx, mut replies) = mpsc::unbounded_channel::<A::Reply>();
    let mut tick = tokio::time::interval(TICK);
    tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Skip);
    let mut feed_open = true;
    let mut control_open = true;
    loop {
        let (width, height) = crossterm::terminal::size().unwrap_or((80, 24));
        terminal.draw(&app.frame(now_ms(), width, height))?;
        if app.finished() {
            return Ok(false);
        }
        let requests = tokio::select! {
            _ = tick.tick() => Vec::new(),
            item = feed.recv(), if feed_open => match item {
                Some(item) => app.on_feed(item, now_ms()),
                None => {
                    feed_open = false;
                    app.on_feed_end(now_ms());
                    Vec::new()
                }
            },
            Some(reply) = replies.recv() => app.on_reply(reply, now_ms()),
            order = control.recv(), if control_open => match order {
                Some(Control::Notice(text)) => {
                    app.on_notice(text, now_ms());
                    Vec::new()
                }
                Some(Control::Stop) => return Ok(true),
                None => {
                    control_open = false;
                    Vec::new()
                }
            },
            event = keys.next() => match event {
                Some(Ok(Event::Key(key))) if key.kind != KeyEventKind::Release => {
                    app.on_key(key, now_ms())
                }
                Some(Ok(Event::Resize(width, height))) => {
                    terminal.resized(width, height);
                    Vec::new()
                }
                Some(Ok(_)) => Vec::new(),
                Some(Err(e)) => return Err(e),
                None => return Ok(false),
            },
        };
        for request in requests {
            let future = perform(request);
            let reply_tx = reply_tx.clone();
            tokio::spawn(async move {
                let _ = reply_tx.send(future.await);
            });
        }
    }
}
