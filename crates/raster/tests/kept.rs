//! Textures kept between runs (`scene::kept`): a second run of a scene takes the kept
//! textures and draws the same bits as a run that built them; keys are exact; the caps
//! still apply to a kept texture; the limits hold.

use hoist_raster::Caps;
use hoist_raster::pattern::{self, Pattern};
use hoist_raster::scene::{RunOptions, TexOptions, TexSource, kept, parse, run};
use hoist_raster::texture::{Filter, Sampler, TexFormat, TexShape, Texture, Wrap};
use std::collections::BTreeMap;
use std::sync::Arc;

const SCENE: &str = "[fragment program]\n!!ARBfp1.0\nTEMP a, b;\n\
    TEX a, fragment.texcoord[0], texture[0], 2D;\nTEX b, fragment.texcoord[0], texture[1], 2D;\n\
    MAD result.color, a, b.y, b;\nEND\n\
    [test]\nwindow rgba32f 32 32\n\
    texture pattern 0 noise:11@64x64 filter linear wrap repeat mipmap linear\n\
    texture pattern 1 solid:-0,0.5,1,1@4x4 filter nearest\n\
    texcoord 0 -0.3 -0.2 0 1\ndraw quad\n";

fn image_bits(text: &str, opts: &RunOptions) -> Vec<u32> {
    let s = parse(text, &opts.caps).unwrap();
    let r = run(&s, opts).unwrap();
    r.targets["window"]
        .pixels
        .iter()
        .flatten()
        .map(|v| v.to_bits())
        .collect()
}

#[test]
fn a_kept_texture_draws_the_bits_a_built_one_does() {
    kept::clear();
    let opts = RunOptions::default();
    let built = image_bits(SCENE, &opts);
    assert_eq!(kept::count(), 2);
    let again = image_bits(SCENE, &opts);
    assert_eq!(kept::count(), 2, "the second run made no new texture");
    assert!(built == again);
    // Another seed is another texture, and another image.
    let other = image_bits(&SCENE.replace("noise:11", "noise:12"), &opts);
    assert_eq!(kept::count(), 3);
    assert!(built != other);
    kept::clear();
    assert!(image_bits(SCENE, &opts) == built);
}

#[test]
fn keys_are_exact() {
    let images = BTreeMap::from([
        ("a".to_string(), vec![1u8, 2, 3]),
        ("b".to_string(), vec![1u8, 2, 4]),
    ]);
    let cap = Caps::default().max_texture_bytes;
    let k = |src: TexSource| kept::key(&src, &images, cap);
    let solid = |c: [f32; 4]| k(TexSource::Pattern(Pattern::Solid(c), 4, 4));
    assert_ne!(solid([0.0; 4]), solid([-0.0, 0.0, 0.0, 0.0]));
    assert_eq!(solid([0.5; 4]), solid([0.5; 4]));
    assert_ne!(
        k(TexSource::Image("a".into())),
        k(TexSource::Image("b".into()))
    );
    assert_eq!(k(TexSource::Image("missing".into())), None);
    assert_eq!(k(TexSource::Target("t".into())), None);
    assert_eq!(k(TexSource::Miptree), None);
    let noise = TexSource::Pattern(Pattern::Noise(1), 8, 8);
    assert_ne!(
        k(noise.clone()),
        k(TexSource::Pattern(Pattern::Noise(1), 8, 16))
    );
    assert_ne!(k(noise.clone()), kept::key(&noise, &images, cap / 2));
    assert_ne!(
        k(TexSource::Pattern(Pattern::Checker(2), 8, 8)),
        k(TexSource::Pattern(Pattern::Noise(2), 8, 8))
    );
}

#[test]
fn the_caps_apply_to_a_kept_texture() {
    kept::clear();
    let text = "[test]\nwindow 8 8\ntexture pattern 0 noise:3@256x256\ndraw quad\n";
    run(
        &parse(text, &Caps::default()).unwrap(),
        &RunOptions::default(),
    )
    .unwrap();
    assert_eq!(kept::count(), 1);
    let caps = Caps {
        max_texture_bytes: 128 * 128 * 16,
        ..Caps::default()
    };
    let opts = RunOptions {
        caps: caps.clone(),
        ..RunOptions::default()
    };
    let scene = parse(text, &Caps::default()).unwrap();
    let e = run(&scene, &opts).unwrap_err();
    assert!(e.to_string().contains("the cap is"), "{e}");
    kept::clear();
    let fresh = run(&scene, &opts).unwrap_err();
    assert_eq!(e.to_string(), fresh.to_string());
}

#[test]
fn the_limits_hold() {
    kept::clear();
    let opts = RunOptions::default();
    for seed in 0..kept::KEPT as u32 + 3 {
        image_bits(
            &SCENE.replace("noise:11", &format!("noise:{}", 100 + seed)),
            &opts,
        );
    }
    assert_eq!(kept::count(), kept::KEPT);
    // Two 2048² textures (64 MB each) do not fit the byte limit together; one does.
    let big = |seed: u64| {
        let src = TexSource::Pattern(Pattern::Noise(seed), 2048, 2048);
        let key = kept::key(&src, &BTreeMap::new(), u64::MAX).unwrap();
        let sampler = Sampler::new(Filter::Nearest, Wrap::ClampToEdge);
        let img = pattern::generate(&Pattern::Noise(seed), 2048, 2048);
        let tex = Texture::from_image(&img, TexShape::default(), TexFormat::default(), sampler);
        let o = TexOptions {
            sampler,
            format: TexFormat::default(),
            shape: TexShape::default(),
            mipmap: false,
        };
        (key, o, Arc::new(tex))
    };
    let (k1, o1, t1) = big(1);
    kept::put(k1.clone(), o1, (2048, 2048), t1.clone());
    assert!(Arc::ptr_eq(&kept::get(&k1, &o1).unwrap().0, &t1));
    assert!(kept::bytes() <= kept::KEPT_BYTES);
    let (k2, o2, t2) = big(2);
    kept::put(k2.clone(), o2, (2048, 2048), t2);
    assert!(
        kept::get(&k1, &o1).is_none(),
        "the older big texture went first"
    );
    assert!(kept::get(&k2, &o2).is_some());
    assert!(kept::bytes() <= kept::KEPT_BYTES);
}
