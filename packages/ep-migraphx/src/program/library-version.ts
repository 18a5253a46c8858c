/**
 * Which MIGraphX libraries this EP supports. The addon declares the C API against the header of
 * MIGraphX 2.14–2.16 (ROCm 7.1–7.x; C library soname 3), whose datatype enum starts tuple, fp4x2,
 * bool, half, float…; older headers have no fp4x2, so every number after it differs. The version
 * comes from the library's file name (the C API has no version call): ROCm builds end in the ROCm
 * release (`libmigraphx_c.so.3.0.70100`), builds from source in just `3.0`. The addon also probes
 * the enum itself (a shape of each type must have that type's size), which settles unversioned builds.
 */
export const SUPPORTED_SONAME_MAJOR = 3;
/** ROCm releases, as the file name's patch number encodes them (major·10000 + minor·100 + patch). */
export const SUPPORTED_ROCM = { min: 70100, belowMax: 80000 } as const;

export type VersionCheck = { ok: true; note?: string } | { ok: false; reason: string };

export function checkLibraryVersion(version: string | null): VersionCheck {
  if (version === null) return { ok: true, note: 'unversioned file name; the datatype probe decides' };
  const m = /^(\d+)(?:\.(\d+))?(?:\.(\d+))?$/.exec(version);
  if (!m) return { ok: true, note: `unrecognized version '${version}'; the datatype probe decides` };
  const major = Number(m[1]);
  if (major !== SUPPORTED_SONAME_MAJOR) {
    return { ok: false, reason: `libmigraphx_c.so version ${version} has C ABI ${major}; this EP is declared against ABI ${SUPPORTED_SONAME_MAJOR} (MIGraphX 2.14–2.16)` };
  }
  const patch = m[3] === undefined ? undefined : Number(m[3]);
  // Small patch numbers are not ROCm releases (a source build's own numbering): the probe decides.
  if (patch === undefined || patch < 10000) return { ok: true };
  const rocm = `${Math.floor(patch / 10000)}.${Math.floor(patch / 100) % 100}.${patch % 100}`;
  if (patch < SUPPORTED_ROCM.min) {
    return { ok: false, reason: `libmigraphx_c.so ${version} is from ROCm ${rocm}, whose MIGraphX numbers datatypes differently; this EP supports ROCm 7.1 to 7.x (MIGraphX 2.14–2.16)` };
  }
  if (patch >= SUPPORTED_ROCM.belowMax) {
    return { ok: false, reason: `libmigraphx_c.so ${version} is from ROCm ${rocm}, newer than the ROCm 7.1 to 7.x this EP was written against; its C API may differ` };
  }
  return { ok: true };
}
