//! Numbers as people read them: signs and thousands separators.

/// A number with its sign: `+5`, `-3`, `0`.
pub fn signed(n: i64) -> String {
    if n > 0 {
        format!("+{n}")
    } else {
        n.to_string()
    }
}

/// A whole number with thousands separators: `12,500`.
pub fn thousands(n: i64) -> String {
    let digits = n.unsigned_abs().to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    if n < 0 { format!("-{out}") } else { out }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_show_sign_and_separators() {
        assert_eq!(signed(5), "+5");
        assert_eq!(signed(-3), "-3");
        assert_eq!(signed(0), "0");
        assert_eq!(thousands(1_234_567), "1,234,567");
        assert_eq!(thousands(-50_000), "-50,000");
        assert_eq!(thousands(999), "999");
    }
}
