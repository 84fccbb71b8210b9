//! The judge example's line handling (the example's `main` only loops over stdin).

#[allow(dead_code)]
#[path = "../examples/judge.rs"]
mod judge_example;

use judge_example::judge;

#[test]
fn judge_answers_each_verdict() {
    let line = |rule: &str, black: &str, white: &str, to_move: &str, m: &str| {
        let list = |s: &str| {
            s.split_whitespace()
                .map(|p| format!("\"{p}\""))
                .collect::<Vec<_>>()
                .join(",")
        };
        format!(
            r#"{{"rule":"{rule}","black":[{}],"white":[{}],"to_move":"{to_move}","move":"{m}"}}"#,
            list(black),
            list(white)
        )
    };
    assert_eq!(
        judge(&line("renju", "h8 i9", "h9", "black", "j10")),
        Ok("allowed")
    );
    assert_eq!(
        judge(&line("renju", "h8 i8 j9 j10", "", "black", "j8")),
        Ok("double_three")
    );
    assert_eq!(
        judge(&line("renju", "d8 e8 f8 h8 i8", "", "black", "g8")),
        Ok("overline")
    );
    assert_eq!(
        judge(&line("renju", "d8 f8 g8 h8 j8", "", "black", "i8")),
        Ok("five")
    );
    assert_eq!(
        judge(&line("renju", "d8 f8 h8 j8", "", "black", "g8")),
        Ok("double_four")
    );
    assert_eq!(
        judge(&line("freestyle", "d8 e8 f8 h8 i8", "", "black", "g8")),
        Ok("five")
    );
    assert_eq!(
        judge(&line("freestyle", "h8 i8 j9 j10", "", "black", "j8")),
        Ok("allowed")
    );
    assert_eq!(
        judge(&line("renju", "", "d8 f8 h8 j8", "white", "g8")),
        Ok("allowed")
    );
    assert_eq!(
        judge(&line("renju", "", "d8 e8 f8 h8 i8", "white", "g8")),
        Ok("five")
    );
}

#[test]
fn judge_reports_bad_lines() {
    assert!(judge("not json").is_err());
    assert!(judge(r#"{"rule":"go","black":[],"white":[],"to_move":"black","move":"h8"}"#).is_err());
    assert!(
        judge(r#"{"rule":"renju","black":["h8"],"white":["h8"],"to_move":"black","move":"a1"}"#)
            .is_err()
    );
    assert!(
        judge(r#"{"rule":"renju","black":["h8"],"white":[],"to_move":"black","move":"h8"}"#)
            .is_err()
    );
    assert!(
        judge(r#"{"rule":"renju","black":["q8"],"white":[],"to_move":"black","move":"h9"}"#)
            .is_err()
    );
    assert!(
        judge(r#"{"rule":"renju","black":[],"white":[],"to_move":"red","move":"h9"}"#).is_err()
    );
}
