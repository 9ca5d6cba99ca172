//! `hoist_asm::sort` against the standard library's stable sort on generated lists.
#![cfg(not(target_arch = "wasm32"))]

use hoist_asm::sort::{by, by_key, ord};
use proptest::prelude::*;

proptest! {
    /// The same order as the standard library's stable sort, ties included: items
    /// carry their original position, and only the key is compared.
    #[test]
    fn orders_as_the_standard_stable_sort(keys in proptest::collection::vec(0u8..6, 0..200)) {
        let items: Vec<(u8, usize)> = keys.iter().copied().zip(0..).collect();
        let mut ours = items.clone();
        by_key(&mut ours, |x| x.0);
        let mut std = items;
        std.sort_by_key(|x| x.0);
        prop_assert_eq!(ours, std);
    }

    #[test]
    fn a_comparison_and_the_items_own_order_agree_with_the_standard_sort(
        mut v in proptest::collection::vec(any::<i16>(), 0..200),
    ) {
        let mut reversed = v.clone();
        by(&mut reversed, |a, b| b.cmp(a));
        let mut expected = v.clone();
        expected.sort_by(|a, b| b.cmp(a));
        prop_assert_eq!(reversed, expected);
        let mut std = v.clone();
        std.sort();
        ord(&mut v);
        prop_assert_eq!(v, std);
    }
}
