import { inflateSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { iconPng } from '../../../electron/main/icon';

describe('iconPng', () => {
  it('writes a valid RGBA PNG of the asked size, transparent in the corner, opaque in the middle', () => {
    const png = iconPng(64);
    expect(png.subarray(0, 8)).toEqual(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]));
    expect(png.toString('ascii', 12, 16)).toBe('IHDR');
    expect([png.readUInt32BE(16), png.readUInt32BE(20), png[24], png[25]]).toEqual([64, 64, 8, 6]);
    const idatLength = png.readUInt32BE(33);
    expect(png.toString('ascii', 37, 41)).toBe('IDAT');
    const raw = inflateSync(png.subarray(41, 41 + idatLength));
    const stride = 64 * 4 + 1;
    expect(raw.length).toBe(stride * 64);
    const alpha = (x: number, y: number) => raw[y * stride + 1 + x * 4 + 3];
    expect(alpha(0, 0)).toBe(0);
    expect(alpha(32, 32)).toBe(255);
    expect(png.toString('ascii', png.length - 8, png.length - 4)).toBe('IEND');
  });
});
