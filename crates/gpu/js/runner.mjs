// Executes a hoist-gpu plan (crates/gpu/src/plan) on the browser's GPU: WebGPU or WebGL2,
// RGBA32F render targets, float readback; and times the draws of two plans against each
// other. One module for the tests' harness (harness.mjs) and for the page's GPU view (Trunk
// copies it next to the page, which imports it when the view first runs).
//
//   import { run, time, detect } from './runner.mjs';
//   const result = await run('webgpu' | 'webgl2', plan);
//   const timing = await time('webgpu' | 'webgl2', [original, optimized], { rounds, warmup, repeat });
//   const apis = await detect();
//
// The result (crates/gpu/src/check.rs, `GpuResult`): { adapter, probes: [{probe, bad, total,
// first} | {probe, depth} | {probe, error}], targets: {name: {width, height, pixels}},
// snapshots: {key: ...} } with pixels as base64 RGBA f32 rows from the bottom, or { error }.
// Conventions (the plan module's header): the viewport is the whole target with GL's depth
// range; counter-clockwise in GL window coordinates is front-facing; depth32float, LESS,
// written only while the test is on; no blending; a binding with nothing to read samples a
// 1x1 (0, 0, 0, 1) texture.
//
// `time` runs each plan once, then replays its draws (every draw of the plan, `repeat` times
// per sample; a depth buffer is cleared before each replayed draw so the depth test does not
// reject the replays), original and optimized interleaved (ABBA), `warmup` rounds dropped:
// { api, adapter, method: 'timestamp-query' | 'EXT_disjoint_timer_query_webgl2' | 'wall',
// gpu: [[ms per pass], [ms per pass]] | null, wall: [[...], [...]], quantized, note, draws,
// width, height, repeat } or { error }. Wall time is taken around a finish: WebGPU's
// onSubmittedWorkDone, WebGL2's gl.finish and a readPixels of one pixel.

export async function run(api, plan) {
  try {
    return api === 'webgl2' ? runWebgl2(plan) : await runWebgpu(plan);
  } catch (e) {
    return { error: String((e && e.message) || e) };
  }
}

/// Times the draws of `plans` (original, optimized) against each other on `api`.
export async function time(api, plans, opts = {}) {
  const o = { rounds: 15, warmup: 2, repeat: 1, ...opts };
  try {
    if (!Array.isArray(plans) || plans.length !== 2) throw new Error('time() takes two plans');
    return api === 'webgl2' ? await timeWebgl2(plans, o) : await timeWebgpu(plans, o);
  } catch (e) {
    return { error: String((e && e.message) || e) };
  }
}

/// Which APIs this browser offers: { webgpu: adapter name | null, webgl2: renderer | null,
/// timestamps, timer, why: {webgpu, webgl2} } (why: the reason an API is missing).
export async function detect() {
  const out = { webgpu: null, webgl2: null, timestamps: false, timer: false, why: {} };
  try {
    const st = await webgpu();
    out.webgpu = st.name;
    out.timestamps = st.timestamps;
  } catch (e) {
    out.why.webgpu = String((e && e.message) || e);
  }
  try {
    const gl = glContext();
    out.webgl2 = gl.hoistName;
    out.timer = !!gl.getExtension('EXT_disjoint_timer_query_webgl2');
    glDrop(gl);
  } catch (e) {
    out.why.webgl2 = String((e && e.message) || e);
  }
  return out;
}

const pause = () => new Promise((r) => setTimeout(r, 0));

function bytes(b64) {
  const s = atob(b64);
  const u = new Uint8Array(s.length);
  for (let i = 0; i < s.length; i++) u[i] = s.charCodeAt(i);
  return u;
}

function floats(b64) {
  const u = bytes(b64);
  return new Float32Array(u.buffer, u.byteOffset, u.byteLength / 4);
}

function toBase64(f32) {
  const u = new Uint8Array(f32.buffer, f32.byteOffset, f32.byteLength);
  let s = '';
  for (let i = 0; i < u.length; i += 0x8000) s += String.fromCharCode.apply(null, u.subarray(i, i + 0x8000));
  return btoa(s);
}

function image(w, h, data) {
  return { width: w, height: h, pixels: toBase64(data) };
}

/// A colour probe over bottom-up RGBA f32 pixels.
function probeColor(c, w, h, data) {
  const [rx, ry, rw, rh] = c.rect;
  const x0 = Math.max(rx, 0), y0 = Math.max(ry, 0);
  const x1 = Math.min(rx + rw, w), y1 = Math.min(ry + rh, h);
  if (x0 >= x1 || y0 >= y1) return { probe: c.probe, bad: 0, total: 0 };
  let bad = 0, first = null;
  for (let y = y0; y < y1; y++) {
    for (let x = x0; x < x1; x++) {
      const i = (y * w + x) * 4;
      let off = false;
      for (let k = 0; k < c.channels; k++) {
        if (!(Math.abs(data[i + k] - c.expect[k]) <= c.tolerance)) off = true;
      }
      if (off) {
        bad++;
        if (!first) first = [x, y, data[i], data[i + 1], data[i + 2], data[i + 3]];
      }
    }
  }
  return { probe: c.probe, bad, total: (x1 - x0) * (y1 - y0), first };
}

function linear(s) {
  return s.min === 'linear' || s.mag === 'linear' || s.mip === 'linear';
}

// ---- WebGPU -------------------------------------------------------------------------------

let gpuState = null;

async function webgpu() {
  if (gpuState && !gpuState.lost) return gpuState;
  if (!navigator.gpu) throw new Error('no WebGPU in this browser');
  const adapter = await navigator.gpu.requestAdapter();
  if (!adapter) throw new Error('no WebGPU adapter');
  const filterable = adapter.features.has('float32-filterable');
  const timestamps = adapter.features.has('timestamp-query');
  const requiredFeatures = [];
  if (filterable) requiredFeatures.push('float32-filterable');
  if (timestamps) requiredFeatures.push('timestamp-query');
  const device = await adapter.requestDevice({ requiredFeatures });
  const info = adapter.info || {};
  const name = [info.vendor, info.architecture, info.device, info.description].filter(Boolean).join(' ');
  const st = { device, filterable, timestamps, name: name || 'WebGPU adapter', lost: false, dummies: {} };
  device.lost.then(() => { st.lost = true; });
  gpuState = st;
  return st;
}

const TEX = () => GPUTextureUsage;

function gpuSampler(device, s) {
  const wrap = s.wrap === 'repeat' ? 'repeat' : 'clamp-to-edge';
  return device.createSampler({
    addressModeU: wrap, addressModeV: wrap, addressModeW: wrap,
    magFilter: s.mag, minFilter: s.min, mipmapFilter: s.mip === 'linear' ? 'linear' : 'nearest',
  });
}

/// A bindable texture: view, sampler and the layout types they need.
function gpuBindable(st, tex, view, format, s) {
  const lin = linear(s);
  if (format === 'rgba32f' && lin && !st.filterable) {
    throw new Error('linear filtering of an RGBA32F texture needs float32-filterable, which this adapter lacks');
  }
  return {
    tex, view, sampler: gpuSampler(st.device, s),
    sampleType: format === 'rgba8' || lin ? 'float' : 'unfilterable-float',
    samplerType: lin ? 'filtering' : 'non-filtering',
  };
}

function gpuUpload(st, t) {
  const device = st.device;
  const l0 = t.levels[0];
  const rgba8 = t.format === 'rgba8';
  const dimension = t.shape === '3d' ? '3d' : '2d';
  const layers = (l) => (t.shape === '2d' ? 1 : l.depth);
  const tex = device.createTexture({
    size: [l0.width, l0.height, layers(l0)], format: rgba8 ? 'rgba8unorm' : 'rgba32float', dimension,
    mipLevelCount: t.levels.length, usage: TEX().TEXTURE_BINDING | TEX().COPY_DST,
  });
  t.levels.forEach((l, i) => {
    const f = floats(l.texels);
    const data = rgba8 ? Uint8Array.from(f, (v) => Math.round(v * 255)) : f;
    device.queue.writeTexture({ texture: tex, mipLevel: i }, data,
      { bytesPerRow: l.width * (rgba8 ? 4 : 16), rowsPerImage: l.height }, [l.width, l.height, layers(l)]);
  });
  const view = tex.createView({ dimension: t.shape === 'cube' ? 'cube' : dimension });
  return gpuBindable(st, tex, view, t.format, t.sampler);
}

function gpuDummy(st, view) {
  if (st.dummies[view]) return st.dummies[view];
  const device = st.device;
  const layers = view === 'cube' ? 6 : 1;
  const tex = device.createTexture({
    size: [1, 1, layers], format: 'rgba8unorm', dimension: view === '3d' ? '3d' : '2d',
    usage: TEX().TEXTURE_BINDING | TEX().COPY_DST,
  });
  const px = new Uint8Array(4 * layers);
  for (let i = 0; i < layers; i++) px[4 * i + 3] = 255;
  device.queue.writeTexture({ texture: tex }, px, { bytesPerRow: 4, rowsPerImage: 1 }, [1, 1, layers]);
  const b = gpuBindable(st, tex, tex.createView({ dimension: view }), 'rgba8',
    { min: 'nearest', mag: 'nearest', mip: 'none', wrap: 'clamp' });
  st.dummies[view] = b;
  return b;
}

function gpuTarget(device, w, h) {
  const tex = device.createTexture({
    size: [w, h], format: 'rgba32float',
    usage: TEX().RENDER_ATTACHMENT | TEX().COPY_SRC | TEX().COPY_DST | TEX().TEXTURE_BINDING,
  });
  return { tex, view: tex.createView(), w, h, depth: null, depthClear: 1, version: 0, cache: null };
}

function gpuEnsureDepth(device, t) {
  if (t.depth) return;
  t.depth = device.createTexture({ size: [t.w, t.h], format: 'depth32float',
    usage: TEX().RENDER_ATTACHMENT | TEX().COPY_SRC });
  t.depthView = t.depth.createView();
  const enc = device.createCommandEncoder();
  enc.beginRenderPass({ colorAttachments: [], depthStencilAttachment: { view: t.depthView,
    depthLoadOp: 'clear', depthClearValue: t.depthClear, depthStoreOp: 'store' } }).end();
  device.queue.submit([enc.finish()]);
}

async function gpuRead(device, tex, w, h, bpp, aspect) {
  const bpr = Math.ceil((w * bpp) / 256) * 256;
  const buf = device.createBuffer({ size: bpr * h, usage: GPUBufferUsage.COPY_DST | GPUBufferUsage.MAP_READ });
  const enc = device.createCommandEncoder();
  enc.copyTextureToBuffer({ texture: tex, aspect: aspect || 'all' }, { buffer: buf, bytesPerRow: bpr }, [w, h]);
  device.queue.submit([enc.finish()]);
  await buf.mapAsync(GPUMapMode.READ);
  const src = new Float32Array(buf.getMappedRange());
  const n = bpp / 4;
  const out = new Float32Array(w * h * n);
  // The translation flips clip y, so row 0 is GL's bottom row already.
  for (let y = 0; y < h; y++) out.set(src.subarray((y * bpr) / 4, (y * bpr) / 4 + w * n), y * w * n);
  buf.unmap();
  buf.destroy();
  return out;
}

async function gpuPixels(device, t) {
  if (t.cache && t.cache.version === t.version) return t.cache.data;
  const data = await gpuRead(device, t.tex, t.w, t.h, 16);
  t.cache = { version: t.version, data };
  return data;
}

function gpuPipeline(st, cache, modules, plan, d, binds, hasDepth) {
  const b = plan.programs[d.program].bindings;
  const key = JSON.stringify([d.program, binds.map((x) => [x.sampleType, x.samplerType]), d.depth_test, d.cull_back, hasDepth]);
  if (cache.has(key)) return cache.get(key);
  const device = st.device;
  const vis = GPUShaderStage.VERTEX | GPUShaderStage.FRAGMENT;
  const g0 = device.createBindGroupLayout({ entries: b.uniforms.map((u) => ({ binding: u.binding, visibility: vis, buffer: { type: 'uniform' } })) });
  const e1 = [];
  b.textures.forEach((t, k) => {
    // Only the stages that sample it: WebGPU counts textures per stage (16 guaranteed).
    const v = (t.stages.includes('vertex') ? GPUShaderStage.VERTEX : 0) | (t.stages.includes('fragment') ? GPUShaderStage.FRAGMENT : 0);
    e1.push({ binding: 2 * k, visibility: v, texture: { sampleType: binds[k].sampleType, viewDimension: t.view } });
    e1.push({ binding: 2 * k + 1, visibility: v, sampler: { type: binds[k].samplerType } });
  });
  const g1 = device.createBindGroupLayout({ entries: e1 });
  const module = modules[d.program];
  const pipeline = device.createRenderPipeline({
    layout: device.createPipelineLayout({ bindGroupLayouts: [g0, g1] }),
    vertex: { module, entryPoint: 'vs', buffers: [{ arrayStride: 256, attributes: b.attributes.map((a) => ({ shaderLocation: a.location, offset: a.location * 16, format: 'float32x4' })) }] },
    fragment: { module, entryPoint: 'fs', targets: [{ format: 'rgba32float' }] },
    // Clip y is flipped: GL's counter-clockwise is clockwise here.
    primitive: { topology: 'triangle-list', cullMode: d.cull_back ? 'back' : 'none', frontFace: 'cw' },
    depthStencil: hasDepth ? { format: 'depth32float', depthWriteEnabled: d.depth_test, depthCompare: d.depth_test ? 'less' : 'always' } : undefined,
  });
  const p = { pipeline, g0, g1 };
  cache.set(key, p);
  return p;
}

function gpuBuffer(device, usage, data) {
  const size = Math.max(16, Math.ceil(data.byteLength / 16) * 16);
  const buf = device.createBuffer({ size, usage: usage | GPUBufferUsage.COPY_DST });
  device.queue.writeBuffer(buf, 0, data);
  return buf;
}

/// A draw made ready to encode (and to encode again when timing): its pipeline, bind
/// groups, buffers and the copies of the targets it reads.
function gpuPrepareDraw(st, ctx, d) {
  const device = st.device;
  const t = ctx.targets.get(d.target);
  // A fragment stage that writes depth needs a depth attachment in WebGPU, test or not.
  if (d.depth_test || ctx.plan.programs[d.program].bindings.frag_depth) gpuEnsureDepth(device, t);
  const copies = [];
  const binds = d.textures.map((b) => {
    if (b.texture !== undefined && b.texture !== null) return ctx.textures[b.texture];
    if (b.target) {
      const src = ctx.targets.get(b.target);
      const copy = device.createTexture({ size: [src.w, src.h], format: 'rgba32float', usage: TEX().TEXTURE_BINDING | TEX().COPY_DST });
      copies.push({ src, copy });
      ctx.temp.push(copy);
      return gpuBindable(st, copy, copy.createView(), 'rgba32f', b.sampler);
    }
    return gpuDummy(st, b.view);
  });
  const p = gpuPipeline(st, ctx.pipelines, ctx.modules, ctx.plan, d, binds, !!t.depth);
  const ub = d.uniforms.map((u) => {
    const buffer = gpuBuffer(device, GPUBufferUsage.UNIFORM, bytes(u.data));
    ctx.temp.push(buffer);
    return { binding: u.binding, resource: { buffer } };
  });
  const bg0 = device.createBindGroup({ layout: p.g0, entries: ub });
  const e1 = [];
  binds.forEach((x, k) => { e1.push({ binding: 2 * k, resource: x.view }, { binding: 2 * k + 1, resource: x.sampler }); });
  const bg1 = device.createBindGroup({ layout: p.g1, entries: e1 });
  const vb = gpuBuffer(device, GPUBufferUsage.VERTEX, bytes(d.vertices));
  const ib = gpuBuffer(device, GPUBufferUsage.INDEX, new Uint32Array(d.indices));
  ctx.temp.push(vb, ib);
  return { t, pipeline: p.pipeline, bg0, bg1, vb, ib, count: d.indices.length, range: d.depth_range, copies };
}

/// Encodes a prepared draw: its copies, then one render pass (`clearDepth`: clear the
/// depth buffer first, for replays; `timestamps`: the pass's timestampWrites).
function gpuEncodeDraw(enc, x, clearDepth, timestamps) {
  for (const c of x.copies) enc.copyTextureToTexture({ texture: c.src.tex }, { texture: c.copy }, [c.src.w, c.src.h]);
  const t = x.t;
  const pass = enc.beginRenderPass({
    colorAttachments: [{ view: t.view, loadOp: 'load', storeOp: 'store' }],
    depthStencilAttachment: t.depth ? { view: t.depthView, depthLoadOp: clearDepth ? 'clear' : 'load',
      depthClearValue: t.depthClear, depthStoreOp: 'store' } : undefined,
    timestampWrites: timestamps,
  });
  pass.setViewport(0, 0, t.w, t.h, x.range[0], x.range[1]);
  pass.setPipeline(x.pipeline);
  pass.setBindGroup(0, x.bg0);
  pass.setBindGroup(1, x.bg1);
  pass.setVertexBuffer(0, x.vb);
  pass.setIndexBuffer(x.ib, 'uint32');
  if (x.count) pass.drawIndexed(x.count);
  pass.end();
}

function gpuDraw(st, ctx, d) {
  const x = gpuPrepareDraw(st, ctx, d);
  const enc = st.device.createCommandEncoder();
  gpuEncodeDraw(enc, x, false, undefined);
  st.device.queue.submit([enc.finish()]);
  x.t.version++;
  return x;
}

/// Runs a plan's commands (`res` null: no probes or snapshots, for timing); returns the
/// context with its targets and prepared draws.
async function gpuExecute(st, plan, res) {
  const device = st.device;
  const modules = plan.programs.map((p) => device.createShaderModule({ code: p.wgsl }));
  for (const [i, m] of modules.entries()) {
    const info = await m.getCompilationInfo();
    const errs = info.messages.filter((x) => x.type === 'error');
    if (errs.length) throw new Error(`program ${i}: ${errs.map((e) => `${e.lineNum}:${e.linePos} ${e.message}`).join('\n')}`);
  }
  const ctx = { plan, modules, targets: new Map(), pipelines: new Map(), temp: [], draws: [],
    textures: plan.textures.map((t) => gpuUpload(st, t)) };
  for (const c of plan.commands) {
    const t = ctx.targets.get(c.target);
    switch (c.op) {
      case 'target': ctx.targets.set(c.name, gpuTarget(device, c.width, c.height)); break;
      case 'clear': {
        const enc = device.createCommandEncoder();
        enc.beginRenderPass({
          colorAttachments: [{ view: t.view, loadOp: 'clear', clearValue: c.color, storeOp: 'store' }],
          depthStencilAttachment: t.depth ? { view: t.depthView, depthLoadOp: 'clear', depthClearValue: c.depth, depthStoreOp: 'store' } : undefined,
        }).end();
        device.queue.submit([enc.finish()]);
        t.depthClear = c.depth;
        t.version++;
        break;
      }
      case 'swap': {
        const a = ctx.targets.get(c.a);
        ctx.targets.set(c.a, ctx.targets.get(c.b));
        ctx.targets.set(c.b, a);
        break;
      }
      case 'draw': ctx.draws.push(gpuDraw(st, ctx, c)); break;
      case 'probe': if (res) res.probes.push(probeColor(c, t.w, t.h, await gpuPixels(device, t))); break;
      case 'probe_depth': {
        if (!res) break;
        if (c.x < 0 || c.y < 0 || c.x >= t.w || c.y >= t.h) { res.probes.push({ probe: c.probe }); break; }
        const z = t.depth ? await gpuRead(device, t.depth, t.w, t.h, 4, 'depth-only') : null;
        res.probes.push({ probe: c.probe, depth: z ? z[c.y * t.w + c.x] : t.depthClear });
        break;
      }
      case 'snapshot': if (res) res.snapshots[c.key] = image(t.w, t.h, await gpuPixels(device, t)); break;
      default: throw new Error(`unknown command ${c.op}`);
    }
  }
  return ctx;
}

/// Frees what a context made (targets, textures, buffers), at once rather than at GC:
/// timing at 4096x4096 holds 256 MB per target.
function gpuRelease(ctx) {
  for (const x of ctx.temp) x.destroy();
  for (const t of new Set(ctx.targets.values())) {
    t.tex.destroy();
    if (t.depth) t.depth.destroy();
  }
  for (const x of ctx.textures) x.tex.destroy();
}

async function runWebgpu(plan) {
  const st = await webgpu();
  const device = st.device;
  device.pushErrorScope('validation');
  const res = { adapter: st.name, probes: [], targets: {}, snapshots: {} };
  let ctx = null;
  let failure = null;
  try {
    ctx = await gpuExecute(st, plan, res);
    for (const [name, t] of ctx.targets) res.targets[name] = image(t.w, t.h, await gpuPixels(device, t));
  } catch (e) {
    failure = e;
  }
  const err = await device.popErrorScope();
  if (ctx) gpuRelease(ctx);
  if (failure) throw failure;
  if (err) throw new Error(err.message);
  return res;
}

/// The passes of one timing sample: every draw of the plan, `repeat` times.
function gpuSample(device, draws, repeat, qs, slot) {
  const enc = device.createCommandEncoder();
  const n = draws.length * repeat;
  for (let i = 0; i < n; i++) {
    let ts;
    if (qs && (i === 0 || i === n - 1)) {
      ts = { querySet: qs };
      if (i === 0) ts.beginningOfPassWriteIndex = 2 * slot;
      if (i === n - 1) ts.endOfPassWriteIndex = 2 * slot + 1;
    }
    gpuEncodeDraw(enc, draws[i % draws.length], true, ts);
  }
  return enc.finish();
}

/// Reads back `count` timestamp pairs: durations in ms.
async function gpuDurations(device, qs, count) {
  const size = 16 * count;
  const resolve = device.createBuffer({ size, usage: GPUBufferUsage.QUERY_RESOLVE | GPUBufferUsage.COPY_SRC });
  const read = device.createBuffer({ size, usage: GPUBufferUsage.COPY_DST | GPUBufferUsage.MAP_READ });
  const enc = device.createCommandEncoder();
  enc.resolveQuerySet(qs, 0, 2 * count, resolve, 0);
  enc.copyBufferToBuffer(resolve, 0, read, 0, size);
  device.queue.submit([enc.finish()]);
  await read.mapAsync(GPUMapMode.READ);
  const ns = new BigInt64Array(read.getMappedRange());
  const out = [];
  for (let i = 0; i < count; i++) out.push(Number(ns[2 * i + 1] - ns[2 * i]) / 1e6);
  read.unmap();
  read.destroy();
  resolve.destroy();
  return out;
}

async function timeWebgpu(plans, o) {
  const st = await webgpu();
  const device = st.device;
  device.pushErrorScope('validation');
  device.pushErrorScope('out-of-memory');
  const ctxs = [];
  let qs = null;
  let out = null;
  let failure = null;
  try {
    for (const p of plans) ctxs.push(await gpuExecute(st, p, null));
    const draws = ctxs.map((c) => c.draws);
    if (draws.some((d) => d.length === 0)) throw new Error('a plan has no draws to time');
    if (st.timestamps) qs = device.createQuerySet({ type: 'timestamp', count: 4 * (o.rounds + o.warmup) });
    out = await gpuSamples(st, draws, o, qs);
  } catch (e) {
    failure = e;
  }
  if (qs) qs.destroy();
  const oom = await device.popErrorScope();
  const err = await device.popErrorScope();
  for (const c of ctxs) gpuRelease(c);
  if (failure) throw failure;
  if (oom) throw new Error(`out of GPU memory: ${oom.message}`);
  if (err) throw new Error(err.message);
  return out;
}

/// The interleaved samples of two plans' prepared draws.
async function gpuSamples(st, draws, o, qs) {
  const device = st.device;
  const wall = [[], []];
  const slots = [];
  await device.queue.onSubmittedWorkDone();
  for (let r = 0; r < o.rounds + o.warmup; r++) {
    for (const k of r % 2 ? [1, 0] : [0, 1]) {
      const slot = slots.length;
      slots.push({ k, keep: r >= o.warmup });
      const cmd = gpuSample(device, draws[k], o.repeat, qs, slot);
      const t0 = performance.now();
      device.queue.submit([cmd]);
      await device.queue.onSubmittedWorkDone();
      if (r >= o.warmup) wall[k].push((performance.now() - t0) / o.repeat);
    }
  }
  let gpu = null;
  let quantized = false;
  if (qs) {
    const d = await gpuDurations(device, qs, slots.length);
    gpu = [[], []];
    slots.forEach((s, i) => { if (s.keep) gpu[s.k].push(d[i] / o.repeat); });
    // Browsers may round timestamps (Chromium: to 0.1 ms without its developer features).
    quantized = d.every((x) => Math.abs(x * 10 - Math.round(x * 10)) < 1e-6);
  }
  const target = draws[0][draws[0].length - 1].t;
  return {
    api: 'webgpu', adapter: st.name, method: qs ? 'timestamp-query' : 'wall', gpu, wall, quantized,
    draws: draws.map((d) => d.length), width: target.w, height: target.h, repeat: o.repeat,
  };
}

// ---- WebGL2 -------------------------------------------------------------------------------

function glProgram(gl, p) {
  const sh = (type, src) => {
    const s = gl.createShader(type);
    gl.shaderSource(s, src);
    gl.compileShader(s);
    if (!gl.getShaderParameter(s, gl.COMPILE_STATUS)) throw new Error(gl.getShaderInfoLog(s));
    return s;
  };
  const prog = gl.createProgram();
  gl.attachShader(prog, sh(gl.VERTEX_SHADER, p.glsl_vs));
  gl.attachShader(prog, sh(gl.FRAGMENT_SHADER, p.glsl_fs));
  gl.linkProgram(prog);
  if (!gl.getProgramParameter(prog, gl.LINK_STATUS)) throw new Error(gl.getProgramInfoLog(prog));
  gl.useProgram(prog);
  for (const u of p.bindings.uniforms) {
    for (const name of u.glsl) {
      const i = gl.getUniformBlockIndex(prog, name);
      if (i !== gl.INVALID_INDEX) gl.uniformBlockBinding(prog, i, u.binding);
    }
  }
  p.bindings.textures.forEach((t, k) => {
    for (const name of t.glsl) {
      const loc = gl.getUniformLocation(prog, name);
      if (loc !== null) gl.uniform1i(loc, k);
    }
  });
  return prog;
}

function glTarget(gl, shape) {
  return shape === '3d' ? gl.TEXTURE_3D : shape === 'cube' ? gl.TEXTURE_CUBE_MAP : gl.TEXTURE_2D;
}

function glParams(gl, target, s, levels, rgba32f, floatLinear) {
  if (rgba32f && linear(s) && !floatLinear) {
    throw new Error('linear filtering of an RGBA32F texture needs OES_texture_float_linear, which this context lacks');
  }
  const n = s.min === 'linear';
  const min = s.mip === 'none' ? (n ? gl.LINEAR : gl.NEAREST)
    : s.mip === 'nearest' ? (n ? gl.LINEAR_MIPMAP_NEAREST : gl.NEAREST_MIPMAP_NEAREST)
      : (n ? gl.LINEAR_MIPMAP_LINEAR : gl.NEAREST_MIPMAP_LINEAR);
  const wrap = s.wrap === 'repeat' ? gl.REPEAT : gl.CLAMP_TO_EDGE;
  gl.texParameteri(target, gl.TEXTURE_MIN_FILTER, min);
  gl.texParameteri(target, gl.TEXTURE_MAG_FILTER, s.mag === 'linear' ? gl.LINEAR : gl.NEAREST);
  gl.texParameteri(target, gl.TEXTURE_WRAP_S, wrap);
  gl.texParameteri(target, gl.TEXTURE_WRAP_T, wrap);
  gl.texParameteri(target, gl.TEXTURE_WRAP_R, wrap);
  gl.texParameteri(target, gl.TEXTURE_MAX_LEVEL, levels - 1);
}

function glUpload(gl, t, floatLinear) {
  const target = glTarget(gl, t.shape);
  const rgba8 = t.format === 'rgba8';
  const [ifmt, type] = rgba8 ? [gl.RGBA8, gl.UNSIGNED_BYTE] : [gl.RGBA32F, gl.FLOAT];
  const tex = gl.createTexture();
  gl.bindTexture(target, tex);
  const l0 = t.levels[0];
  if (t.shape === '3d') gl.texStorage3D(target, t.levels.length, ifmt, l0.width, l0.height, l0.depth);
  else gl.texStorage2D(target, t.levels.length, ifmt, l0.width, l0.height);
  t.levels.forEach((l, i) => {
    const f = floats(l.texels);
    const data = rgba8 ? Uint8Array.from(f, (v) => Math.round(v * 255)) : f;
    if (t.shape === '3d') {
      gl.texSubImage3D(target, i, 0, 0, 0, l.width, l.height, l.depth, gl.RGBA, type, data);
    } else if (t.shape === 'cube') {
      const face = l.width * l.height * 4;
      for (let f6 = 0; f6 < 6; f6++) {
        gl.texSubImage2D(gl.TEXTURE_CUBE_MAP_POSITIVE_X + f6, i, 0, 0, l.width, l.height, gl.RGBA, type, data.subarray(f6 * face, (f6 + 1) * face));
      }
    } else {
      gl.texSubImage2D(target, i, 0, 0, l.width, l.height, gl.RGBA, type, data);
    }
  });
  glParams(gl, target, t.sampler, t.levels.length, !rgba8, floatLinear);
  return { tex, target };
}

function glDummy(gl, cache, view) {
  if (cache[view]) return cache[view];
  const t = { shape: view, format: 'rgba8', sampler: { min: 'nearest', mag: 'nearest', mip: 'none', wrap: 'clamp' },
    levels: [{ width: 1, height: 1, depth: view === 'cube' ? 6 : 1, texels: toBase64(new Float32Array(Array(view === 'cube' ? 6 : 1).fill([0, 0, 0, 1]).flat())) }] };
  cache[view] = glUpload(gl, t, false);
  return cache[view];
}

function glNewTarget(gl, w, h) {
  const tex = gl.createTexture();
  gl.bindTexture(gl.TEXTURE_2D, tex);
  gl.texStorage2D(gl.TEXTURE_2D, 1, gl.RGBA32F, w, h);
  const fb = gl.createFramebuffer();
  gl.bindFramebuffer(gl.FRAMEBUFFER, fb);
  gl.framebufferTexture2D(gl.FRAMEBUFFER, gl.COLOR_ATTACHMENT0, gl.TEXTURE_2D, tex, 0);
  gl.clearBufferfv(gl.COLOR, 0, [0, 0, 0, 0]);
  return { tex, fb, w, h, depth: null, depthClear: 1 };
}

function glEnsureDepth(gl, t) {
  if (t.depth) return;
  t.depth = gl.createRenderbuffer();
  gl.bindRenderbuffer(gl.RENDERBUFFER, t.depth);
  gl.renderbufferStorage(gl.RENDERBUFFER, gl.DEPTH_COMPONENT32F, t.w, t.h);
  gl.bindFramebuffer(gl.FRAMEBUFFER, t.fb);
  gl.framebufferRenderbuffer(gl.FRAMEBUFFER, gl.DEPTH_ATTACHMENT, gl.RENDERBUFFER, t.depth);
  gl.depthMask(true);
  gl.clearBufferfv(gl.DEPTH, 0, [t.depthClear]);
}

function glPixels(gl, t) {
  gl.bindFramebuffer(gl.READ_FRAMEBUFFER, t.fb);
  const data = new Float32Array(t.w * t.h * 4);
  gl.readPixels(0, 0, t.w, t.h, gl.RGBA, gl.FLOAT, data);
  return data;
}

/// A texture with sampler `s` to hold a copy of a target's contents (blitted by glIssueDraw).
function glCopy(gl, src, s, floatLinear, temp) {
  const tex = gl.createTexture();
  gl.bindTexture(gl.TEXTURE_2D, tex);
  gl.texStorage2D(gl.TEXTURE_2D, 1, gl.RGBA32F, src.w, src.h);
  glParams(gl, gl.TEXTURE_2D, s, 1, true, floatLinear);
  const fb = gl.createFramebuffer();
  gl.bindFramebuffer(gl.DRAW_FRAMEBUFFER, fb);
  gl.framebufferTexture2D(gl.DRAW_FRAMEBUFFER, gl.COLOR_ATTACHMENT0, gl.TEXTURE_2D, tex, 0);
  temp.push(() => { gl.deleteFramebuffer(fb); gl.deleteTexture(tex); });
  return { tex, target: gl.TEXTURE_2D, blit: { src, fb } };
}

/// A draw made ready to issue (and to issue again when timing): textures, uniform
/// buffers, the vertex array.
function glPrepareDraw(gl, ctx, d) {
  const t = ctx.targets.get(d.target);
  if (d.depth_test) glEnsureDepth(gl, t);
  const p = ctx.plan.programs[d.program];
  const xs = d.textures.map((b) => {
    if (b.texture !== undefined && b.texture !== null) return ctx.textures[b.texture];
    if (b.target) return glCopy(gl, ctx.targets.get(b.target), b.sampler, ctx.floatLinear, ctx.temp);
    return glDummy(gl, ctx.dummies, b.view);
  });
  const ubos = d.uniforms.map((u) => {
    const buf = gl.createBuffer();
    gl.bindBuffer(gl.UNIFORM_BUFFER, buf);
    gl.bufferData(gl.UNIFORM_BUFFER, bytes(u.data), gl.STATIC_DRAW);
    ctx.temp.push(() => gl.deleteBuffer(buf));
    return [u.binding, buf];
  });
  const vao = gl.createVertexArray();
  gl.bindVertexArray(vao);
  // WebGL caps a vertex stride at 255 bytes: the 16 slots go slot by slot, 16 bytes apart.
  const v = floats(d.vertices);
  const n = d.vertex_count;
  const soa = new Float32Array(n * 64);
  for (let i = 0; i < n; i++) {
    for (let s = 0; s < 16; s++) soa.set(v.subarray(i * 64 + s * 4, i * 64 + s * 4 + 4), (s * n + i) * 4);
  }
  const vb = gl.createBuffer();
  gl.bindBuffer(gl.ARRAY_BUFFER, vb);
  gl.bufferData(gl.ARRAY_BUFFER, soa, gl.STATIC_DRAW);
  for (const a of p.bindings.attributes) {
    gl.enableVertexAttribArray(a.location);
    gl.vertexAttribPointer(a.location, 4, gl.FLOAT, false, 16, a.location * n * 16);
  }
  const ib = gl.createBuffer();
  gl.bindBuffer(gl.ELEMENT_ARRAY_BUFFER, ib);
  gl.bufferData(gl.ELEMENT_ARRAY_BUFFER, new Uint32Array(d.indices), gl.STATIC_DRAW);
  gl.bindVertexArray(null);
  ctx.temp.push(() => { gl.deleteVertexArray(vao); gl.deleteBuffer(vb); gl.deleteBuffer(ib); });
  return { t, xs, ubos, vao, prog: ctx.programs[d.program], d };
}

/// Issues a prepared draw (`clearDepth`: clear the depth buffer first, for replays).
function glIssueDraw(gl, x, clearDepth) {
  const { t, d } = x;
  for (const b of x.xs.filter((y) => y.blit)) {
    gl.bindFramebuffer(gl.READ_FRAMEBUFFER, b.blit.src.fb);
    gl.bindFramebuffer(gl.DRAW_FRAMEBUFFER, b.blit.fb);
    gl.blitFramebuffer(0, 0, b.blit.src.w, b.blit.src.h, 0, 0, b.blit.src.w, b.blit.src.h, gl.COLOR_BUFFER_BIT, gl.NEAREST);
  }
  x.xs.forEach((y, k) => {
    gl.activeTexture(gl.TEXTURE0 + k);
    gl.bindTexture(y.target, y.tex);
  });
  gl.useProgram(x.prog);
  for (const [binding, buf] of x.ubos) gl.bindBufferBase(gl.UNIFORM_BUFFER, binding, buf);
  gl.bindFramebuffer(gl.FRAMEBUFFER, t.fb);
  if (clearDepth && t.depth) { gl.depthMask(true); gl.clearBufferfv(gl.DEPTH, 0, [t.depthClear]); }
  gl.bindVertexArray(x.vao);
  gl.viewport(0, 0, t.w, t.h);
  gl.depthRange(d.depth_range[0], d.depth_range[1]);
  if (d.depth_test) { gl.enable(gl.DEPTH_TEST); gl.depthFunc(gl.LESS); gl.depthMask(true); } else { gl.disable(gl.DEPTH_TEST); gl.depthMask(false); }
  if (d.cull_back) { gl.enable(gl.CULL_FACE); gl.cullFace(gl.BACK); gl.frontFace(gl.CCW); } else gl.disable(gl.CULL_FACE);
  gl.disable(gl.BLEND);
  gl.disable(gl.DITHER);
  if (d.indices.length) gl.drawElements(gl.TRIANGLES, d.indices.length, gl.UNSIGNED_INT, 0);
  gl.bindVertexArray(null);
}

function glDraw(gl, ctx, d) {
  const x = glPrepareDraw(gl, ctx, d);
  glIssueDraw(gl, x, false);
  return x;
}

/// A WebGL2 context with float render targets (`hoistName`: the renderer's name).
function glContext() {
  const canvas = document.createElement('canvas');
  const gl = canvas.getContext('webgl2', { antialias: false, depth: false });
  if (!gl) throw new Error('no WebGL2 in this browser');
  if (!gl.getExtension('EXT_color_buffer_float')) {
    glDrop(gl);
    throw new Error('no EXT_color_buffer_float: float render targets are unavailable');
  }
  const dbg = gl.getExtension('WEBGL_debug_renderer_info');
  gl.hoistName = dbg ? gl.getParameter(dbg.UNMASKED_RENDERER_WEBGL) : gl.getParameter(gl.RENDERER);
  return gl;
}

function glDrop(gl) {
  const lose = gl.getExtension('WEBGL_lose_context');
  if (lose) lose.loseContext();
}

/// Runs a plan's commands on `gl` (`res` null: no probes or snapshots, for timing);
/// returns the context with its targets and prepared draws.
function glExecute(gl, plan, res) {
  const floatLinear = !!gl.getExtension('OES_texture_float_linear');
  gl.pixelStorei(gl.UNPACK_ALIGNMENT, 1);
  const ctx = { plan, floatLinear, targets: new Map(), dummies: {}, temp: [], draws: [],
    programs: plan.programs.map((p, i) => { try { return glProgram(gl, p); } catch (e) { throw new Error(`program ${i}: ${e.message}`); } }),
    textures: plan.textures.map((t) => glUpload(gl, t, floatLinear)) };
  const e0 = gl.getError();
  if (e0) throw new Error(`GL error 0x${e0.toString(16)} setting up programs and textures`);
  for (const [n, c] of plan.commands.entries()) {
    const t = ctx.targets.get(c.target);
    glCommand(gl, ctx, res, c, t);
    const e = gl.getError();
    if (e) throw new Error(`GL error 0x${e.toString(16)} at command ${n} (${c.op})`);
  }
  return ctx;
}

function runWebgl2(plan) {
  const gl = glContext();
  try {
    const res = { adapter: gl.hoistName, probes: [], targets: {}, snapshots: {} };
    const ctx = glExecute(gl, plan, res);
    for (const [name, t] of ctx.targets) res.targets[name] = image(t.w, t.h, glPixels(gl, t));
    const e = gl.getError();
    for (const f of ctx.temp) f();
    if (e) throw new Error(`GL error 0x${e.toString(16)}`);
    return res;
  } finally {
    glDrop(gl);
  }
}

function glCommand(gl, ctx, res, c, t) {
    switch (c.op) {
      case 'target': ctx.targets.set(c.name, glNewTarget(gl, c.width, c.height)); break;
      case 'clear':
        gl.bindFramebuffer(gl.FRAMEBUFFER, t.fb);
        gl.clearBufferfv(gl.COLOR, 0, c.color);
        if (t.depth) { gl.depthMask(true); gl.clearBufferfv(gl.DEPTH, 0, [c.depth]); }
        t.depthClear = c.depth;
        break;
      case 'swap': {
        const a = ctx.targets.get(c.a);
        ctx.targets.set(c.a, ctx.targets.get(c.b));
        ctx.targets.set(c.b, a);
        break;
      }
      case 'draw': ctx.draws.push(glDraw(gl, ctx, c)); break;
      case 'probe': if (res) res.probes.push(probeColor(c, t.w, t.h, glPixels(gl, t))); break;
      case 'probe_depth': if (res) res.probes.push({ probe: c.probe, error: 'WebGL2 cannot read a depth buffer back' }); break;
      case 'snapshot': if (res) res.snapshots[c.key] = image(t.w, t.h, glPixels(gl, t)); break;
      default: throw new Error(`unknown command ${c.op}`);
    }
}

/// Waits for a timer query's result (ms), or null when the GPU was disjoint meanwhile.
async function glQueryMs(gl, ext, q) {
  for (let i = 0; i < 2000 && !gl.getQueryParameter(q, gl.QUERY_RESULT_AVAILABLE); i++) await pause();
  if (!gl.getQueryParameter(q, gl.QUERY_RESULT_AVAILABLE) || gl.getParameter(ext.GPU_DISJOINT_EXT)) return null;
  return gl.getQueryParameter(q, gl.QUERY_RESULT) / 1e6;
}

async function timeWebgl2(plans, o) {
  const gl = glContext();
  const ctxs = [];
  try {
    const ext = gl.getExtension('EXT_disjoint_timer_query_webgl2');
    for (const p of plans) ctxs.push(glExecute(gl, p, null));
    const draws = ctxs.map((c) => c.draws);
    if (draws.some((d) => d.length === 0)) throw new Error('a plan has no draws to time');
    const px = new Float32Array(4);
    const finish = (x) => {
      gl.finish();
      gl.bindFramebuffer(gl.READ_FRAMEBUFFER, x.t.fb);
      gl.readPixels(0, 0, 1, 1, gl.RGBA, gl.FLOAT, px);
    };
    const wall = [[], []];
    const queries = [];
    if (ext) gl.getParameter(ext.GPU_DISJOINT_EXT);
    for (let r = 0; r < o.rounds + o.warmup; r++) {
      for (const k of r % 2 ? [1, 0] : [0, 1]) {
        const list = draws[k];
        const last = list[list.length - 1];
        finish(last);
        const q = ext ? gl.createQuery() : null;
        const t0 = performance.now();
        if (q) gl.beginQuery(ext.TIME_ELAPSED_EXT, q);
        for (let i = 0; i < o.repeat; i++) for (const x of list) glIssueDraw(gl, x, true);
        if (q) gl.endQuery(ext.TIME_ELAPSED_EXT);
        finish(last);
        const ms = (performance.now() - t0) / o.repeat;
        if (r >= o.warmup) {
          wall[k].push(ms);
          if (q) queries.push({ k, q });
        } else if (q) gl.deleteQuery(q);
        await pause();
      }
    }
    let gpu = null;
    let note = null;
    if (ext) {
      gpu = [[], []];
      for (const { k, q } of queries) {
        const ms = await glQueryMs(gl, ext, q);
        gl.deleteQuery(q);
        if (ms === null) { gpu = null; note = 'the GPU reported a disjoint operation: timer queries discarded'; break; }
        gpu[k].push(ms / o.repeat);
      }
    }
    const e = gl.getError();
    if (e) throw new Error(`GL error 0x${e.toString(16)} while timing`);
    const target = draws[0][draws[0].length - 1].t;
    return {
      api: 'webgl2', adapter: gl.hoistName, method: gpu ? 'EXT_disjoint_timer_query_webgl2' : 'wall', gpu, wall,
      quantized: false, note, draws: draws.map((d) => d.length), width: target.w, height: target.h, repeat: o.repeat,
    };
  } finally {
    for (const c of ctxs) for (const f of c.temp) f();
    glDrop(gl);
  }
}
