#!/usr/bin/env node
// Writes the packaging icons in build/icons/ from the one drawing in electron/main/icon.ts (the
// same one the tray uses), with nothing but Node's zlib: `node scripts/make-icons.js`.
//   icon.png        512×512, macOS (electron-builder makes the .icns from it)
//   icon.ico        16–256 px, Windows (PNG-compressed entries, valid since Windows Vista)
//   NxN.png         the Linux set (electron-builder picks the sizes from the file names)
import { mkdirSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { register } from 'tsx/esm/api';

register();
const { iconPng } = await import('../electron/main/icon.ts');

const dir = fileURLToPath(new URL('../build/icons/', import.meta.url));
mkdirSync(dir, { recursive: true });

writeFileSync(`${dir}icon.png`, iconPng(512));
for (const size of [16, 32, 48, 64, 128, 256, 512]) writeFileSync(`${dir}${size}x${size}.png`, iconPng(size));
writeFileSync(`${dir}icon.ico`, ico([16, 32, 48, 256].map((size) => ({ size, png: iconPng(size) }))));
process.stdout.write(`Wrote icons to ${dir}\n`);

/** An ICO file whose entries are PNG images: a 6-byte header, 16 bytes per entry, the images. */
function ico(images) {
  const header = Buffer.alloc(6 + 16 * images.length);
  header.writeUInt16LE(0, 0); // reserved
  header.writeUInt16LE(1, 2); // type: icon
  header.writeUInt16LE(images.length, 4);
  let offset = header.length;
  images.forEach(({ size, png }, i) => {
    const entry = 6 + 16 * i;
    header.writeUInt8(size >= 256 ? 0 : size, entry); // 0 means 256
    header.writeUInt8(size >= 256 ? 0 : size, entry + 1);
    header.writeUInt8(0, entry + 2); // no palette
    header.writeUInt8(0, entry + 3); // reserved
    header.writeUInt16LE(1, entry + 4); // colour planes
    header.writeUInt16LE(32, entry + 6); // bits per pixel
    header.writeUInt32LE(png.length, entry + 8);
    header.writeUInt32LE(offset, entry + 12);
    offset += png.length;
  });
  return Buffer.concat([header, ...images.map(({ png }) => png)]);
}
