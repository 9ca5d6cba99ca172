//! Hand edits are never lost silently: unchecking "edit by hand" puts the edit aside
//! (`Doc::hand_kept`), checking it again brings it back; a hand edit remembers the original
//! programs it was started from ([`fingerprint`]), so that editing the original marks it
//! stale, with a way to start again from the optimizer's new output.

use crate::doc::model::{Doc, HandEdit};

/// A stable 64-bit FNV-1a hash of the original programs and their dialects: what a hand
/// edit was derived from. Stable across builds (it travels in links).
pub fn fingerprint(doc: &Doc) -> u64 {
    let mut h = hoist_asm::hash::Fnv1a::new();
    let parts = [
        doc.vp.as_str(),
        doc.fp.as_str(),
        doc.vp_profile.as_deref().unwrap_or(""),
        doc.fp_profile.as_deref().unwrap_or(""),
    ];
    for part in parts {
        h.write(part.as_bytes());
        h.write(&[0xff]);
    }
    h.finish()
}

/// Whether the hand edit was started from other original programs than the document's.
pub fn is_stale(doc: &Doc) -> bool {
    doc.hand
        .as_ref()
        .and_then(|h| h.base)
        .is_some_and(|b| b != fingerprint(doc))
}

/// A hand edit of `vp`/`fp`, started from the document's current originals.
pub fn start(doc: &Doc, vp: String, fp: String) -> HandEdit {
    HandEdit {
        vp,
        fp,
        base: Some(fingerprint(doc)),
    }
}

/// Turns hand editing on or off; `fresh` is the optimizer's output to start from when
/// there is no kept edit. Returns whether the document changed.
pub fn toggle(doc: &mut Doc, on: bool, fresh: impl FnOnce() -> (String, String)) -> bool {
    match (on, doc.hand.is_some()) {
        (true, false) => {
            doc.hand = Some(match doc.hand_kept.take() {
                Some(kept) => kept,
                None => {
                    let (vp, fp) = fresh();
                    start(doc, vp, fp)
                }
            });
            true
        }
        (false, true) => {
            doc.hand_kept = doc.hand.take();
            true
        }
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn doc() -> Doc {
        Doc {
            vp: "vs_2_0\nmov oPos, v0\n".into(),
            fp: "ps_2_0\nmov oC0, c0\n".into(),
            ..Doc::default()
        }
    }

    #[test]
    fn unchecking_keeps_the_edit_and_checking_restores_it() {
        let mut d = doc();
        assert!(toggle(&mut d, true, || ("v".into(), "f".into())));
        d.hand.as_mut().unwrap().fp = "mine".into();
        assert!(toggle(&mut d, false, || unreachable!()));
        assert!(d.hand.is_none());
        assert_eq!(d.hand_kept.as_ref().unwrap().fp, "mine");
        assert!(toggle(&mut d, true, || panic!("the kept edit comes back")));
        assert_eq!(d.hand.as_ref().unwrap().fp, "mine");
        assert!(d.hand_kept.is_none());
        assert!(!toggle(&mut d, true, || unreachable!()));
    }

    #[test]
    fn editing_the_original_makes_the_hand_edit_stale() {
        let mut d = doc();
        toggle(&mut d, true, || ("v".into(), "f".into()));
        assert!(!is_stale(&d));
        d.fp.push_str("; a comment\n");
        assert!(is_stale(&d));
        d.fp = doc().fp;
        assert!(!is_stale(&d), "back to the original text");
        d.fp_profile = Some("ps_3_0".into());
        assert!(is_stale(&d), "a different dialect is another original");
        d.hand.as_mut().unwrap().base = None;
        assert!(
            !is_stale(&d),
            "an older link without a base is never called stale"
        );
    }

    #[test]
    fn the_fingerprint_separates_the_parts() {
        let a = Doc {
            vp: "ab".into(),
            fp: "c".into(),
            ..Doc::default()
        };
        let b = Doc {
            vp: "a".into(),
            fp: "bc".into(),
            ..Doc::default()
        };
        assert_ne!(fingerprint(&a), fingerprint(&b));
        assert_eq!(fingerprint(&a), fingerprint(&a.clone()));
    }
}
