//! What every table screen shows below the game: the connection, requests in flight
//! (after a second), the last message (the server's words for a refusal), a line of
//! help and the command line.

use super::follow::Feed;
use super::term::{Frame, LineEditor, wrap};

/// A message for the player.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Notice {
    /// The text (for a refusal, the server's message as it is).
    pub text: String,
    /// Shown as an error.
    pub error: bool,
}

/// The table stream's connection.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Link {
    /// Connecting for the first time.
    Connecting,
    /// Events arrive as they happen.
    Live,
    /// Lost; reconnecting.
    Reconnecting {
        /// Which attempt is next.
        attempt: u32,
        /// What went wrong.
        error: String,
        /// When the stream was lost (Unix ms).
        since_ms: i64,
    },
    /// Lost for good (the table is gone).
    Ended(String),
}

/// Something asked of a server and not answered yet.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Pending {
    /// What, e.g. "placing h8".
    pub label: String,
    /// When it was asked (Unix ms).
    pub since_ms: i64,
}

/// Requests shorter than this show no progress.
pub const PROGRESS_AFTER_MS: i64 = 1_000;

/// The bottom of a table screen.
#[derive(Debug, Clone)]
pub struct Footer {
    /// The stream's connection.
    pub link: Link,
    /// Requests in flight, oldest first.
    pub pending: Vec<Pending>,
    /// The last message.
    pub notice: Option<Notice>,
    /// The command line.
    pub editor: LineEditor,
}

impl Default for Footer {
    fn default() -> Self {
        Self {
            link: Link::Connecting,
            pending: Vec::new(),
            notice: None,
            editor: LineEditor::default(),
        }
    }
}

impl Footer {
    /// Shows `text` as information.
    pub fn info(&mut self, text: impl Into<String>) {
        self.notice = Some(Notice {
            text: text.into(),
            error: false,
        });
    }

    /// Shows `text` as an error.
    pub fn error(&mut self, text: impl Into<String>) {
        self.notice = Some(Notice {
            text: text.into(),
            error: true,
        });
    }

    /// Starts showing `label` as in flight.
    pub fn start(&mut self, label: impl Into<String>, now_ms: i64) {
        self.pending.push(Pending {
            label: label.into(),
            since_ms: now_ms,
        });
    }

    /// `label` was answered.
    pub fn finish(&mut self, label: &str) {
        if let Some(i) = self.pending.iter().position(|p| p.label == label) {
            self.pending.remove(i);
        }
    }

    /// Follows the connection part of a feed item.
    pub fn link_feed<S, E>(&mut self, feed: &Feed<S, E>, now_ms: i64) {
        match feed {
            Feed::Snapshot(_) | Feed::Event(_) => {
                if self.link == Link::Connecting {
                    self.link = Link::Live;
                }
            }
            Feed::Live => {
                if matches!(self.link, Link::Reconnecting { .. }) {
                    self.info("reconnected; the table is up to date");
                }
                self.link = Link::Live;
            }
            Feed::Reconnecting { attempt, error } => {
                let since_ms = match &self.link {
                    Link::Reconnecting { since_ms, .. } => *since_ms,
                    _ => now_ms,
                };
                self.link = Link::Reconnecting {
                    attempt: *attempt,
                    error: error.clone(),
                    since_ms,
                };
            }
            Feed::Ended(reason) => {
                self.link = Link::Ended(reason.clone());
            }
        }
    }

    /// The footer's lines: status lines (wrapped at `width`), `help`, then the prompt.
    /// The cursor goes on the prompt, `row` being the row of the first footer line.
    pub fn render(&self, help: &str, now_ms: i64, row: usize, width: u16) -> Frame {
        let mut lines = Vec::new();
        match &self.link {
            Link::Connecting => lines.push(format!("{} connecting…", spinner(now_ms))),
            Link::Live => {}
            Link::Reconnecting {
                attempt,
                error,
                since_ms,
            } => lines.push(format!(
                "{} connection lost ({error}); reconnecting, attempt {attempt}, {} so far",
                spinner(now_ms),
                clock(now_ms - since_ms),
            )),
            Link::Ended(reason) => lines.push(format!("! the table stream ended: {reason}")),
        }
        for pending in &self.pending {
            let waited = now_ms - pending.since_ms;
            if waited >= PROGRESS_AFTER_MS {
                lines.push(format!(
                    "{} {}… {:.1}s",
                    spinner(now_ms),
                    pending.label,
                    waited as f64 / 1000.0
                ));
            }
        }
        if let Some(notice) = &self.notice {
            let mark = if notice.error { "!" } else { "·" };
            lines.push(format!("{mark} {}", notice.text));
        }
        let mut lines: Vec<String> = lines
            .iter()
            .flat_map(|l| wrap(l, usize::from(width)))
            .collect();
        lines.push(help.to_owned());
        let prompt = format!("> {}", self.editor.text());
        let cursor_row = row + lines.len();
        lines.push(prompt);
        Frame {
            lines,
            cursor: Some((
                u16::try_from(2 + self.editor.cursor_column()).unwrap_or(u16::MAX),
                u16::try_from(cursor_row).unwrap_or(u16::MAX),
            )),
        }
    }
}

/// `body` above `footer`, the body cut at the bottom so that the footer, and with it
/// the prompt, always fits in `height` rows.
pub fn compose(
    mut body: Vec<String>,
    footer: &Footer,
    help: &str,
    now_ms: i64,
    (width, height): (u16, u16),
) -> Frame {
    let footer_rows = footer.render(help, now_ms, 0, width).lines.len();
    body.truncate(usize::from(height).saturating_sub(footer_rows + 1));
    body.push(String::new());
    let rendered = footer.render(help, now_ms, body.len(), width);
    body.extend(rendered.lines);
    Frame {
        lines: body,
        cursor: rendered.cursor,
    }
}

/// A turning bar that shows the screen is alive.
pub fn spinner(now_ms: i64) -> char {
    const FRAMES: [char; 4] = ['|', '/', '-', '\\'];
    FRAMES[usize::try_from(now_ms.rem_euclid(1000) / 250).unwrap_or(0)]
}

/// Milliseconds as `m:ss` (`h:mm:ss` from an hour), rounded up so that a clock shows
/// 0:00 only once time is out.
pub fn clock(ms: i64) -> String {
    let secs = (ms.max(0) + 999) / 1000;
    if secs >= 3600 {
        format!("{}:{:02}:{:02}", secs / 3600, secs % 3600 / 60, secs % 60)
    } else {
        format!("{}:{:02}", secs / 60, secs % 60)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn clocks_round_up_and_never_go_negative() {
        assert_eq!(clock(0), "0:00");
        assert_eq!(clock(1), "0:01");
        assert_eq!(clock(59_001), "1:00");
        assert_eq!(clock(900_000), "15:00");
        assert_eq!(clock(-5), "0:00");
        assert_eq!(clock(3_600_000), "1:00:00");
    }

    #[test]
    fn progress_shows_only_after_a_second() {
        let mut footer = Footer {
            link: Link::Live,
            ..Footer::default()
        };
        footer.start("placing h8", 10_000);
        let quick = footer.render("help", 10_500, 0, 200).lines.join("\n");
        assert!(!quick.contains("placing h8"));
        let slow = footer.render("help", 11_600, 0, 200).lines.join("\n");
        assert!(slow.contains("placing h8… 1.6s"), "{slow}");
        footer.finish("placing h8");
        assert!(
            !footer
                .render("help", 12_000, 0, 200)
                .lines
                .join("\n")
                .contains("h8")
        );
    }

    #[test]
    fn a_lost_stream_shows_the_attempt_and_the_time_since_the_drop() {
        let mut footer = Footer::default();
        footer.link_feed::<(), ()>(&Feed::Snapshot(()), 0);
        assert_eq!(footer.link, Link::Live);
        footer.link_feed::<(), ()>(
            &Feed::Reconnecting {
                attempt: 1,
                error: "the server cannot be reached".into(),
            },
            1_000,
        );
        footer.link_feed::<(), ()>(
            &Feed::Reconnecting {
                attempt: 2,
                error: "the server cannot be reached".into(),
            },
            2_000,
        );
        let text = footer.render("", 4_000, 0, 200).lines.join("\n");
        assert!(
            text.contains("reconnecting, attempt 2, 0:03 so far"),
            "{text}"
        );
        footer.link_feed::<(), ()>(&Feed::Live, 5_000);
        let text = footer.render("", 5_000, 0, 200).lines.join("\n");
        assert!(text.contains("reconnected"), "{text}");
        assert!(!text.contains("reconnecting"), "{text}");
    }
}
