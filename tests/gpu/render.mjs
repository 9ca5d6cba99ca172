// Renders jobs in headless Chromium with the browser's own shader compilers: WebGPU (WGSL,
// Dawn on SwiftShader/Vulkan) and WebGL2 (GLSL ES, ANGLE on SwiftShader). A reusable
// oracle for the differential tests (crates/front/tests/gpu.rs) and for later GPU views.
//
//   node tests/gpu/render.mjs JOBS.json OUT.json
//
// JOBS.json: an array of jobs, each
//   { name, api: "webgpu"|"webgl2", width, height,
//     wgsl, vertex, fragment                  (webgpu: module text and entry points)
//     vs, fs                                  (webgl2: GLSL ES 1.00/3.00 sources)
//     vertices: [x, y, z, w, u, v] × 4        (a triangle strip; location 0 = xyzw,
//                                              location 8 = uv; WebGL2 attributes by the
//                                              names in `attributes`: {name: 0|8})
//     buffers:  [{group, binding, data: [f32]}]          (webgpu uniform buffers)
//     uniforms: [{name, type: "float"|"vec2"|...|"mat4", data: [f32]}] (webgl2)
//     textures: [{group, binding, unit, name, width, height, data: [u8 rgba, rows from
//                 the bottom]}] (nearest filtering, clamp to edge; RGBA8)
//     samplers: [{group, binding}] }
// OUT.json: [{name, pixels: [f32 rgba, rows from the bottom]} | {name, error}], so rows
// match OpenGL's (and Hoist's) bottom-up images. Render targets are RGBA32F.

import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const pw = path.resolve(here, '../e2e/node_modules/playwright-core/index.mjs');
const { chromium } = await import(pathToFileURL(pw).href);

const [jobsPath, outPath] = process.argv.slice(2);
const jobs = JSON.parse(fs.readFileSync(jobsPath, 'utf8'));

const server = http.createServer((_, res) => {
  res.writeHead(200, { 'content-type': 'text/html' });
  res.end('<!doctype html><title>gpu oracle</title><canvas id=c></canvas>');
});
await new Promise((r) => server.listen(0, '127.0.0.1', r));
const url = `http://127.0.0.1:${server.address().port}/`;

const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
  args: ['--no-sandbox', '--headless=new', '--enable-unsafe-webgpu', '--enable-features=Vulkan',
    '--use-vulkan=swiftshader', '--use-webgpu-adapter=swiftshader', '--use-angle=swiftshader',
    '--enable-unsafe-swiftshader', '--disable-dev-shm-usage'],
});
const out = [];
try {
  const page = await browser.newPage();
  await page.goto(url);
  for (const job of jobs) {
    const fn = job.api === 'webgl2' ? renderWebgl2 : renderWebgpu;
    try {
      const r = await page.evaluate(fn, job);
      out.push({ name: job.name, ...r });
    } catch (e) {
      out.push({ name: job.name, error: String(e.message || e) });
    }
  }
} finally {
  await browser.close();
  server.close();
}
fs.writeFileSync(outPath, JSON.stringify(out));

async function renderWebgpu(job) {
  if (!navigator.gpu) return { error: 'no WebGPU in this browser' };
  const adapter = await navigator.gpu.requestAdapter();
  if (!adapter) return { error: 'no WebGPU adapter' };
  const device = await adapter.requestDevice();
  const errors = [];
  device.pushErrorScope('validation');
  const module = device.createShaderModule({ code: job.wgsl });
  const info = await module.getCompilationInfo();
  const msgs = info.messages.filter((m) => m.type === 'error');
  if (msgs.length) return { error: msgs.map((m) => `${m.lineNum}:${m.linePos} ${m.message}`).join('\n') };
  // An explicit layout with every binding the job lists, so that a binding the shader does
  // not use is no error (an 'auto' layout leaves it out of the bind group).
  const vis = GPUShaderStage.VERTEX | GPUShaderStage.FRAGMENT;
  const layouts = new Map();
  const lay = (g, e) => { if (!layouts.has(g)) layouts.set(g, []); layouts.get(g).push(e); };
  for (const b of job.buffers || []) lay(b.group, { binding: b.binding, visibility: vis, buffer: { type: 'uniform' } });
  for (const t of job.textures || []) lay(t.group, { binding: t.binding, visibility: vis, texture: { sampleType: 'float' } });
  for (const s of job.samplers || []) lay(s.group, { binding: s.binding, visibility: vis, sampler: { type: 'filtering' } });
  const ngroups = layouts.size ? Math.max(...layouts.keys()) + 1 : 0;
  const bgls = [];
  for (let g = 0; g < ngroups; g++) bgls.push(device.createBindGroupLayout({ entries: layouts.get(g) || [] }));
  const pipeline = device.createRenderPipeline({
    layout: device.createPipelineLayout({ bindGroupLayouts: bgls }),
    vertex: {
      module, entryPoint: job.vertex,
      buffers: [{ arrayStride: 24, attributes: [
        { shaderLocation: 0, offset: 0, format: 'float32x4' },
        { shaderLocation: 8, offset: 16, format: 'float32x2' }] }],
    },
    fragment: { module, entryPoint: job.fragment, targets: [{ format: 'rgba32float' }] },
    primitive: { topology: 'triangle-strip' },
  });
  const vb = device.createBuffer({ size: 96, usage: GPUBufferUsage.VERTEX | GPUBufferUsage.COPY_DST });
  device.queue.writeBuffer(vb, 0, new Float32Array(job.vertices));
  const groups = new Map();
  const entry = (g, e) => { if (!groups.has(g)) groups.set(g, []); groups.get(g).push(e); };
  for (const b of job.buffers || []) {
    const size = Math.max(16, Math.ceil(b.data.length * 4 / 16) * 16);
    const buf = device.createBuffer({ size, usage: GPUBufferUsage.UNIFORM | GPUBufferUsage.COPY_DST });
    device.queue.writeBuffer(buf, 0, new Float32Array(b.data));
    entry(b.group, { binding: b.binding, resource: { buffer: buf } });
  }
  for (const t of job.textures || []) {
    const tex = device.createTexture({ size: [t.width, t.height], format: 'rgba8unorm',
      usage: GPUTextureUsage.TEXTURE_BINDING | GPUTextureUsage.COPY_DST });
    // Rows from the bottom (OpenGL) → WebGPU's first row is v = 0 as well: upload as given.
    device.queue.writeTexture({ texture: tex }, new Uint8Array(t.data), { bytesPerRow: t.width * 4 }, [t.width, t.height]);
    entry(t.group, { binding: t.binding, resource: tex.createView() });
  }
  for (const s of job.samplers || []) {
    entry(s.group, { binding: s.binding, resource: device.createSampler({
      magFilter: 'nearest', minFilter: 'nearest', addressModeU: 'clamp-to-edge', addressModeV: 'clamp-to-edge' }) });
  }
  const target = device.createTexture({ size: [job.width, job.height], format: 'rgba32float',
    usage: GPUTextureUsage.RENDER_ATTACHMENT | GPUTextureUsage.COPY_SRC });
  const enc = device.createCommandEncoder();
  const pass = enc.beginRenderPass({ colorAttachments: [{ view: target.createView(),
    clearValue: [0, 0, 0, 0], loadOp: 'clear', storeOp: 'store' }] });
  pass.setPipeline(pipeline);
  for (let g = 0; g < ngroups; g++) {
    pass.setBindGroup(g, device.createBindGroup({ layout: bgls[g], entries: groups.get(g) || [] }));
  }
  pass.setVertexBuffer(0, vb);
  pass.draw(4);
  pass.end();
  const bpr = Math.ceil(job.width * 16 / 256) * 256;
  const rb = device.createBuffer({ size: bpr * job.height, usage: GPUBufferUsage.COPY_DST | GPUBufferUsage.MAP_READ });
  enc.copyTextureToBuffer({ texture: target }, { buffer: rb, bytesPerRow: bpr }, [job.width, job.height]);
  device.queue.submit([enc.finish()]);
  const err = await device.popErrorScope();
  if (err) errors.push(err.message);
  if (errors.length) return { error: errors.join('\n') };
  await rb.mapAsync(GPUMapMode.READ);
  const data = new Float32Array(rb.getMappedRange());
  const pixels = [];
  // WebGPU's framebuffer row 0 is the top: emit rows from the bottom.
  for (let y = job.height - 1; y >= 0; y--) {
    for (let x = 0; x < job.width * 4; x++) pixels.push(data[y * bpr / 4 + x]);
  }
  return { pixels };
}

function renderWebgl2(job) {
  const canvas = document.createElement('canvas');
  canvas.width = job.width; canvas.height = job.height;
  const gl = canvas.getContext('webgl2');
  if (!gl) return { error: 'no WebGL2' };
  if (!gl.getExtension('EXT_color_buffer_float')) return { error: 'no EXT_color_buffer_float' };
  const sh = (type, src) => {
    const s = gl.createShader(type); gl.shaderSource(s, src); gl.compileShader(s);
    if (!gl.getShaderParameter(s, gl.COMPILE_STATUS)) throw new Error(gl.getShaderInfoLog(s));
    return s;
  };
  const prog = gl.createProgram();
  gl.attachShader(prog, sh(gl.VERTEX_SHADER, job.vs));
  gl.attachShader(prog, sh(gl.FRAGMENT_SHADER, job.fs));
  for (const [name, loc] of Object.entries(job.attributes || {})) gl.bindAttribLocation(prog, loc === 8 ? 1 : 0, name);
  gl.linkProgram(prog);
  if (!gl.getProgramParameter(prog, gl.LINK_STATUS)) return { error: gl.getProgramInfoLog(prog) };
  gl.useProgram(prog);
  const fb = gl.createFramebuffer();
  const rt = gl.createTexture();
  gl.bindTexture(gl.TEXTURE_2D, rt);
  gl.texStorage2D(gl.TEXTURE_2D, 1, gl.RGBA32F, job.width, job.height);
  gl.bindFramebuffer(gl.FRAMEBUFFER, fb);
  gl.framebufferTexture2D(gl.FRAMEBUFFER, gl.COLOR_ATTACHMENT0, gl.TEXTURE_2D, rt, 0);
  gl.viewport(0, 0, job.width, job.height);
  gl.clearColor(0, 0, 0, 0); gl.clear(gl.COLOR_BUFFER_BIT);
  const vb = gl.createBuffer();
  gl.bindBuffer(gl.ARRAY_BUFFER, vb);
  gl.bufferData(gl.ARRAY_BUFFER, new Float32Array(job.vertices), gl.STATIC_DRAW);
  gl.enableVertexAttribArray(0); gl.vertexAttribPointer(0, 4, gl.FLOAT, false, 24, 0);
  gl.enableVertexAttribArray(1); gl.vertexAttribPointer(1, 2, gl.FLOAT, false, 24, 16);
  for (const u of job.uniforms || []) {
    const loc = gl.getUniformLocation(prog, u.name);
    if (loc === null) continue;
    const d = new Float32Array(u.data);
    ({ float: () => gl.uniform1fv(loc, d), vec2: () => gl.uniform2fv(loc, d), vec3: () => gl.uniform3fv(loc, d),
      vec4: () => gl.uniform4fv(loc, d), mat2: () => gl.uniformMatrix2fv(loc, false, d),
      mat3: () => gl.uniformMatrix3fv(loc, false, d), mat4: () => gl.uniformMatrix4fv(loc, false, d) })[u.type]();
  }
  for (const t of job.textures || []) {
    gl.activeTexture(gl.TEXTURE0 + t.unit);
    const tex = gl.createTexture();
    gl.bindTexture(gl.TEXTURE_2D, tex);
    gl.texImage2D(gl.TEXTURE_2D, 0, gl.RGBA8, t.width, t.height, 0, gl.RGBA, gl.UNSIGNED_BYTE, new Uint8Array(t.data));
    gl.texParameteri(gl.TEXTURE_2D, gl.TEXTURE_MIN_FILTER, gl.NEAREST);
    gl.texParameteri(gl.TEXTURE_2D, gl.TEXTURE_MAG_FILTER, gl.NEAREST);
    gl.texParameteri(gl.TEXTURE_2D, gl.TEXTURE_WRAP_S, gl.CLAMP_TO_EDGE);
    gl.texParameteri(gl.TEXTURE_2D, gl.TEXTURE_WRAP_T, gl.CLAMP_TO_EDGE);
    const loc = gl.getUniformLocation(prog, t.name);
    if (loc !== null) gl.uniform1i(loc, t.unit);
  }
  gl.drawArrays(gl.TRIANGLE_STRIP, 0, 4);
  const data = new Float32Array(job.width * job.height * 4);
  gl.readPixels(0, 0, job.width, job.height, gl.RGBA, gl.FLOAT, data);
  const e = gl.getError();
  if (e) return { error: `GL error ${e}` };
  return { pixels: Array.from(data) };
}
