//! Reading numbers the user types: parameter vectors, sizes and ranges. Every reader
//! returns a message for the user instead of accepting NaN, infinities or garbage.

/// Parses 1–4 numbers separated by commas or blanks (parentheses allowed). Missing
/// components default to `(0, 0, 0, 1)`, as for a GL vertex attribute.
pub fn parse_vec4(text: &str) -> Result<[f32; 4], String> {
    let parts: Vec<&str> = text
        .split(|c: char| c == ',' || c == '(' || c == ')' || c.is_whitespace())
        .filter(|p| !p.is_empty())
        .collect();
    if parts.is_empty() {
        return Err("enter 1 to 4 numbers, e.g. 0.5, 0, 0, 1".into());
    }
    if parts.len() > 4 {
        return Err(format!("{} numbers given; a parameter has 4", parts.len()));
    }
    let mut v = [0.0, 0.0, 0.0, 1.0];
    for (i, p) in parts.iter().enumerate() {
        v[i] = parse_finite(p)?;
    }
    Ok(v)
}

/// One finite float.
pub fn parse_finite(text: &str) -> Result<f32, String> {
    let t = text.trim();
    let x: f32 = t.parse().map_err(|_| format!("`{t}` is not a number"))?;
    if x.is_nan() {
        return Err("NaN is not accepted: parameters must be finite numbers".into());
    }
    if x.is_infinite() {
        return Err(format!(
            "`{t}` is infinite (or beyond ±3.4e38): parameters must be finite numbers"
        ));
    }
    Ok(x)
}

/// A render-target edge in 1..=max.
pub fn parse_size(text: &str, max: u32) -> Result<u32, String> {
    let t = text.trim();
    let v: u64 = t
        .parse()
        .map_err(|_| format!("`{t}` is not a whole number of pixels"))?;
    if v == 0 {
        return Err("the size must be at least 1 pixel".into());
    }
    if v > u64::from(max) {
        return Err(format!("{v} px is above the cap of {max} px"));
    }
    Ok(v as u32)
}

/// Formats a vector for an input field.
/// A float in the shortest text that reads back to the same bits (exponent form when very
/// large or small); NaN and the infinities as `NaN`, `+Inf`, `-Inf`.
pub fn fmt_f32(f: f32) -> String {
    if f.is_nan() {
        "NaN".into()
    } else if f.is_infinite() {
        if f > 0.0 { "+Inf" } else { "-Inf" }.into()
    } else if f != 0.0 && (f.abs() >= 1e7 || f.abs() < 1e-4) {
        format!("{f:e}")
    } else {
        format!("{f}")
    }
}

pub fn format_vec4(v: [f32; 4]) -> String {
    v.map(|x| x.to_string()).join(", ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn vectors() {
        assert_eq!(parse_vec4("1, 2, 3, 4"), Ok([1.0, 2.0, 3.0, 4.0]));
        assert_eq!(parse_vec4("(0.5 -1e-3)"), Ok([0.5, -0.001, 0.0, 1.0]));
        assert_eq!(parse_vec4("2"), Ok([2.0, 0.0, 0.0, 1.0]));
        assert!(parse_vec4("").is_err());
        assert!(parse_vec4("1 2 3 4 5").unwrap_err().contains("5 numbers"));
        assert!(parse_vec4("1, x").unwrap_err().contains("`x`"));
        assert_eq!(format_vec4([1.0, 0.5, -2.0, 0.0]), "1, 0.5, -2, 0");
        assert_eq!(
            parse_vec4(&format_vec4([1.25, 3e-8, -0.0, 7.0])),
            Ok([1.25, 3e-8, -0.0, 7.0])
        );
    }

    #[test]
    fn nan_and_inf_are_refused_with_a_message() {
        assert!(parse_vec4("NaN, 0, 0, 0").unwrap_err().contains("NaN"));
        assert!(parse_vec4("inf").unwrap_err().contains("infinite"));
        assert!(parse_vec4("-infinity").unwrap_err().contains("infinite"));
        assert!(parse_vec4("1e39").unwrap_err().contains("infinite"));
    }

    #[test]
    fn sizes() {
        assert_eq!(parse_size(" 256 ", 1024), Ok(256));
        assert!(parse_size("0", 1024).is_err());
        assert!(parse_size("4096", 1024).unwrap_err().contains("cap"));
        assert!(parse_size("99999999999999999999", 1024).is_err());
        assert!(parse_size("-3", 1024).is_err());
    }
}
