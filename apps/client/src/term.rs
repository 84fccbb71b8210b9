//! The terminal: raw mode on the alternate screen, a frame of text lines redrawn in
//! place (only the lines that changed, so it is cheap under tmux and over ssh), and a
//! one-line editor for commands.
//!
//! Everything here except [`Terminal`] is pure so it can be unit-tested.

use std::io::{self, Write};

use crossterm::event::{KeyCode, KeyEvent, KeyEventKind, KeyModifiers};
use crossterm::{cursor, queue, style, terminal};

/// One screenful: text lines from the top and where the cursor goes.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Frame {
    /// The lines, top first; longer lines are cut at the terminal's width.
    pub lines: Vec<String>,
    /// (column, row) of the cursor; hidden when `None`.
    pub cursor: Option<(u16, u16)>,
}

/// The terminal in raw mode on the alternate screen; restores it when dropped (also
/// when the program unwinds), so a crash never leaves a broken shell behind.
pub struct Terminal {
    /// Where frames are written.
    out: io::Stdout,
    /// What is on the screen now, to redraw only the lines that changed.
    shown: Vec<String>,
    /// Columns: longer lines are cut.
    width: u16,
    /// Rows: lines below are not drawn.
    height: u16,
}

impl Terminal {
    /// Takes over the terminal. Fails when standard input or output is not a terminal.
    pub fn start() -> io::Result<Terminal> {
        use std::io::IsTerminal;
        if !io::stdout().is_terminal() || !io::stdin().is_terminal() {
            return Err(io::Error::other(
                "this command needs a terminal (run it in a terminal or tmux, not through a pipe)",
            ));
        }
        let (width, height) = terminal::size()?;
        terminal::enable_raw_mode()?;
        let mut out = io::stdout();
        queue!(
            out,
            terminal::EnterAlternateScreen,
            terminal::Clear(terminal::ClearType::All)
        )?;
        out.flush()?;
        Ok(Terminal {
            out,
            shown: Vec::new(),
            width,
            height,
        })
    }

    /// The terminal changed size: everything is drawn again.
    pub fn resized(&mut self, width: u16, height: u16) {
        self.width = width;
        self.height = height;
        self.shown.clear();
        let _ = queue!(self.out, terminal::Clear(terminal::ClearType::All));
    }

    /// Shows `frame`, writing only the lines that differ from what is shown.
    pub fn draw(&mut self, frame: &Frame) -> io::Result<()> {
        let rows = usize::from(self.height.max(1));
        let lines: Vec<String> = frame
            .lines
            .iter()
            .take(rows)
            .map(|l| fit(l, usize::from(self.width)))
            .collect();
        queue!(self.out, cursor::Hide)?;
        for (row, line) in lines.iter().enumerate() {
            if self.shown.get(row) == Some(line) {
                continue;
            }
            let row = u16::try_from(row).unwrap_or(u16::MAX);
            queue!(
                self.out,
                cursor::MoveTo(0, row),
                style::Print(line),
                terminal::Clear(terminal::ClearType::UntilNewLine)
            )?;
        }
        if self.shown.len() > lines.len() {
            let row = u16::try_from(lines.len()).unwrap_or(u16::MAX);
            queue!(
                self.out,
                cursor::MoveTo(0, row),
                terminal::Clear(terminal::ClearType::FromCursorDown)
            )?;
        }
        if let Some((column, row)) = frame.cursor {
            queue!(self.out, cursor::MoveTo(column, row), cursor::Show)?;
        }
        self.out.flush()?;
        self.shown = lines;
        Ok(())
    }
}

impl Drop for Terminal {
    fn drop(&mut self) {
        let _ = queue!(self.out, cursor::Show, terminal::LeaveAlternateScreen);
        let _ = self.out.flush();
        let _ = terminal::disable_raw_mode();
    }
}

/// How many terminal columns `c` takes: 2 for the wide East Asian characters (Chinese
/// room names and titles), 1 otherwise.
pub fn char_width(c: char) -> usize {
    let c = u32::from(c);
    let wide = matches!(c,
        0x1100..=0x115F
        | 0x2E80..=0x303E
        | 0x3041..=0x33FF
        | 0x3400..=0x4DBF
        | 0x4E00..=0x9FFF
        | 0xA000..=0xA4CF
        | 0xAC00..=0xD7A3
        | 0xF900..=0xFAFF
        | 0xFE30..=0xFE4F
        | 0xFF00..=0xFF60
        | 0xFFE0..=0xFFE6
        | 0x1F300..=0x1F64F
        | 0x20000..=0x3FFFD);
    if wide { 2 } else { 1 }
}

/// The columns `text` takes.
pub fn text_width(text: &str) -> usize {
    text.chars().map(char_width).sum()
}

/// `text` cut to at most `width` columns.
pub fn fit(text: &str, width: usize) -> String {
    let mut used = 0;
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        let w = char_width(c);
        if used + w > width {
            break;
        }
        used += w;
        out.push(c);
    }
    out
}

/// `text` padded with spaces to `width` columns (or cut to it).
pub fn pad(text: &str, width: usize) -> String {
    let mut out = fit(text, width);
    let used = text_width(&out);
    out.extend(std::iter::repeat_n(' ', width.saturating_sub(used)));
    out
}

/// `text` in lines of at most `width` columns (8 at least), broken at spaces where
/// possible; continuation lines are indented by two spaces.
pub fn wrap(text: &str, width: usize) -> Vec<String> {
    let width = width.max(8);
    let mut lines = Vec::new();
    let mut line = String::new();
    for word in text.split(' ') {
        let candidate = if line.is_empty() {
            word.to_owned()
        } else {
            format!("{line} {word}")
        };
        if text_width(&candidate) <= width || line.trim().is_empty() {
            line = candidate;
        } else {
            lines.push(line);
            line = format!("  {word}");
        }
        while text_width(&line) > width {
            let head = fit(&line, width);
            let rest: String = line.chars().skip(head.chars().count()).collect();
            lines.push(head);
            line = format!("  {rest}");
        }
    }
    lines.push(line);
    lines
}

/// What a key did to the command line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Edit {
    /// Nothing for the caller (the line may have changed).
    None,
    /// Enter: the line, trimmed (the editor is cleared).
    Submit(String),
    /// Tab: the caller may complete or suggest (e.g. a Dou Dizhu hint).
    Tab,
    /// Ctrl-C or Ctrl-D on an empty line: leave the screen.
    Quit,
    /// A key the editor does not use (arrows, Escape on an empty line, …).
    Key(KeyEvent),
}

/// The command line: text with a cursor, and the commands entered before (Up/Down).
#[derive(Debug, Clone, Default)]
pub struct LineEditor {
    /// The line as typed.
    text: Vec<char>,
    /// Cursor position in characters.
    at: usize,
    /// Commands entered before, oldest first (Up recalls them).
    history: Vec<String>,
    /// Position while browsing the history; `None` when editing a new line.
    browsing: Option<usize>,
}

/// The most commands the editor remembers.
const HISTORY_LIMIT: usize = 100;

impl LineEditor {
    /// The line as typed.
    pub fn text(&self) -> String {
        self.text.iter().collect()
    }

    /// The cursor's column within the line.
    pub fn cursor_column(&self) -> usize {
        self.text[..self.at].iter().map(|&c| char_width(c)).sum()
    }

    /// Replaces the line (e.g. with a hint) and puts the cursor at its end.
    pub fn set(&mut self, text: &str) {
        self.text = text.chars().collect();
        self.at = self.text.len();
        self.browsing = None;
    }

    /// Applies one key.
    pub fn key(&mut self, key: KeyEvent) -> Edit {
        if key.kind == KeyEventKind::Release {
            return Edit::None;
        }
        let ctrl = key.modifiers.contains(KeyModifiers::CONTROL);
        match key.code {
            KeyCode::Char('c') if ctrl => Edit::Quit,
            KeyCode::Char('d') if ctrl && self.text.is_empty() => Edit::Quit,
            KeyCode::Char('u') if ctrl => {
                self.set("");
                Edit::None
            }
            KeyCode::Char('a') if ctrl => {
                self.at = 0;
                Edit::None
            }
            KeyCode::Char('e') if ctrl => {
                self.at = self.text.len();
                Edit::None
            }
            KeyCode::Char(c) if !ctrl => {
                self.text.insert(self.at, c);
                self.at += 1;
                Edit::None
            }
            KeyCode::Backspace => {
                if self.at > 0 {
                    self.at -= 1;
                    self.text.remove(self.at);
                }
                Edit::None
            }
            KeyCode::Delete => {
                if self.at < self.text.len() {
                    self.text.remove(self.at);
                }
                Edit::None
            }
            KeyCode::Left if !self.text.is_empty() => {
                self.at = self.at.saturating_sub(1);
                Edit::None
            }
            KeyCode::Right if !self.text.is_empty() => {
                self.at = (self.at + 1).min(self.text.len());
                Edit::None
            }
            KeyCode::Up if !self.history.is_empty() => {
                let i = match self.browsing {
                    Some(i) => i.saturating_sub(1),
                    None => self.history.len() - 1,
                };
                let line = self.history[i].clone();
                self.set(&line);
                self.browsing = Some(i);
                Edit::None
            }
            KeyCode::Down if self.browsing.is_some() => {
                let next = self.browsing.map_or(0, |i| i + 1);
                if next < self.history.len() {
                    let line = self.history[next].clone();
                    self.set(&line);
                    self.browsing = Some(next);
                } else {
                    self.set("");
                }
                Edit::None
            }
            KeyCode::Esc if !self.text.is_empty() => {
                self.set("");
                Edit::None
            }
            KeyCode::Tab => Edit::Tab,
            KeyCode::Enter => {
                let line = self.text().trim().to_owned();
                self.set("");
                if !line.is_empty() && self.history.last() != Some(&line) {
                    self.history.push(line.clone());
                    if self.history.len() > HISTORY_LIMIT {
                        self.history.remove(0);
                    }
                }
                Edit::Submit(line)
            }
            _ => Edit::Key(key),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn press(code: KeyCode) -> KeyEvent {
        KeyEvent::new(code, KeyModifiers::NONE)
    }

    fn typed(editor: &mut LineEditor, text: &str) {
        for c in text.chars() {
            assert_eq!(editor.key(press(KeyCode::Char(c))), Edit::None);
        }
    }

    #[test]
    fn enter_submits_the_trimmed_line_and_clears_it() {
        let mut editor = LineEditor::default();
        typed(&mut editor, " h8 ");
        assert_eq!(editor.key(press(KeyCode::Enter)), Edit::Submit("h8".into()));
        assert_eq!(editor.text(), "");
    }

    #[test]
    fn editing_keys_move_and_delete_at_the_cursor() {
        let mut editor = LineEditor::default();
        typed(&mut editor, "h9");
        editor.key(press(KeyCode::Left));
        editor.key(press(KeyCode::Backspace));
        typed(&mut editor, "j1");
        assert_eq!(editor.text(), "j19");
        assert_eq!(editor.cursor_column(), 2);
        editor.key(press(KeyCode::Delete));
        assert_eq!(editor.text(), "j1");
    }

    #[test]
    fn up_recalls_earlier_commands() {
        let mut editor = LineEditor::default();
        typed(&mut editor, "h8");
        editor.key(press(KeyCode::Enter));
        typed(&mut editor, "resign");
        editor.key(press(KeyCode::Enter));
        editor.key(press(KeyCode::Up));
        assert_eq!(editor.text(), "resign");
        editor.key(press(KeyCode::Up));
        assert_eq!(editor.text(), "h8");
        editor.key(press(KeyCode::Down));
        assert_eq!(editor.text(), "resign");
        editor.key(press(KeyCode::Down));
        assert_eq!(editor.text(), "");
    }

    #[test]
    fn ctrl_c_quits_and_tab_is_left_to_the_caller() {
        let mut editor = LineEditor::default();
        assert_eq!(editor.key(press(KeyCode::Tab)), Edit::Tab);
        assert_eq!(
            editor.key(KeyEvent::new(KeyCode::Char('c'), KeyModifiers::CONTROL)),
            Edit::Quit
        );
        // Arrows on an empty line go to the caller (e.g. to step a replay).
        assert!(matches!(editor.key(press(KeyCode::Right)), Edit::Key(_)));
    }

    #[test]
    fn long_lines_wrap_at_spaces_with_an_indent() {
        assert_eq!(wrap("short", 20), vec!["short"]);
        assert_eq!(
            wrap("rules: freestyle (无禁手): five or more wins", 24),
            vec!["rules: freestyle", "  (无禁手): five or more", "  wins"]
        );
        for line in wrap(&"x".repeat(50), 10) {
            assert!(text_width(&line) <= 10, "{line}");
        }
    }

    #[test]
    fn wide_characters_take_two_columns() {
        assert_eq!(text_width("斗地主 ok"), 9);
        assert_eq!(fit("斗地主", 5), "斗地");
        assert_eq!(pad("ab", 4), "ab  ");
        assert_eq!(text_width("●○·×"), 4);
    }
}
