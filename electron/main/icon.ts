import { crc32, deflateSync } from 'node:zlib';

/**
 * The Gateway icon, drawn in code: a teal rounded square with a reader's dot and three signal
 * arcs. The tray and the window use it at run time (no image file has to be found inside the
 * asar archive), and scripts/make-icons.js writes the packaging icons in build/icons/ from it.
 */
export function iconPng(size: number): Buffer {
  const rgba = Buffer.alloc(size * size * 4);
  const s = size / 512; // the drawing is laid out on a 512-unit grid
  const centre = { x: 150 * s, y: 362 * s };
  const arcs = [120, 200, 280].map((r) => r * s);
  const stroke = 44 * s;
  for (let y = 0; y < size; y++) {
    for (let x = 0; x < size; x++) {
      const px = x + 0.5;
      const py = y + 0.5;
      const square = coverage(roundedSquare(px, py, size, 112 * s));
      if (square === 0) continue;
      let mark = coverage(Math.hypot(px - centre.x, py - centre.y) - 48 * s);
      for (const radius of arcs)
        mark = Math.max(mark, coverage(quarterArc(px - centre.x, py - centre.y, radius) - stroke / 2));
      // Background: a vertical teal gradient; the mark is white on top of it.
      const t = y / size;
      const background = [15 + 6 * t, 118 - 24 * t, 110 - 10 * t];
      const offset = (y * size + x) * 4;
      for (let c = 0; c < 3; c++) rgba[offset + c] = Math.round((background[c] ?? 0) * (1 - mark) + 255 * mark);
      rgba[offset + 3] = Math.round(255 * square);
    }
  }
  return encodePng(size, size, rgba);
}

/** Anti-aliased coverage of a shape whose signed distance (in pixels) is `distance`. */
const coverage = (distance: number): number => Math.min(1, Math.max(0, 0.5 - distance));

/** Signed distance to a square filling the image with corner radius `radius`. */
function roundedSquare(x: number, y: number, size: number, radius: number): number {
  const half = size / 2;
  const qx = Math.abs(x - half) - (half - radius);
  const qy = Math.abs(y - half) - (half - radius);
  return Math.hypot(Math.max(qx, 0), Math.max(qy, 0)) + Math.min(Math.max(qx, qy), 0) - radius;
}

/** Distance to the quarter circle of `radius` that opens up and to the right (round ends). */
function quarterArc(dx: number, dy: number, radius: number): number {
  if (dx >= 0 && dy <= 0) return Math.abs(Math.hypot(dx, dy) - radius);
  return Math.min(Math.hypot(dx - radius, dy), Math.hypot(dx, dy + radius));
}

/** A minimal PNG: 8-bit RGBA, one IDAT, no filtering (each scanline prefixed with filter 0). */
export function encodePng(width: number, height: number, rgba: Buffer): Buffer {
  const raw = Buffer.alloc((width * 4 + 1) * height);
  for (let y = 0; y < height; y++) rgba.copy(raw, y * (width * 4 + 1) + 1, y * width * 4, (y + 1) * width * 4);
  const header = Buffer.alloc(13);
  header.writeUInt32BE(width, 0);
  header.writeUInt32BE(height, 4);
  header.set([8, 6, 0, 0, 0], 8); // bit depth 8, colour type RGBA, deflate, no filter, no interlace
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', header),
    chunk('IDAT', deflateSync(raw, { level: 9 })),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

function chunk(type: string, data: Buffer): Buffer {
  const length = Buffer.alloc(4);
  length.writeUInt32BE(data.length);
  const body = Buffer.concat([Buffer.from(type, 'ascii'), data]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(body));
  return Buffer.concat([length, body, crc]);
}
