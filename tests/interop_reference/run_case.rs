//! The per-case check: both libraries' chunks through both decoders, getitem, headers.

use crate::cases::{codec_name, expected_output, gen_data, Case};
use crate::common::reflib::reflib;
use crate::report::{first_diff, Report};
use blosc2::chunk;
use blosc2::codec;
use std::ops::ControlFlow;

fn ours_decompress(case: &Case, chunk: &[u8]) -> Result<Vec<u8>, String> {
    let mut out = vec![0u8; case.size];
    match chunk::decompress_into(&case.dparams(), chunk, &mut out) {
        Ok(n) if n == case.size => Ok(out),
        Ok(n) => Err(format!("Ok({n}) instead of Ok({})", case.size)),
        Err(e) => Err(format!("{e:?}")),
    }
}

fn ours_getitem(case: &Case, chunk: &[u8], start: i32, n: i32) -> Result<Vec<u8>, String> {
    let want = n as usize * case.p.typesize as usize;
    let mut out = vec![0u8; want];
    match chunk::getitem(&case.dparams(), chunk, start as i64, n as i64, &mut out) {
        Ok(k) if k == want => Ok(out),
        Ok(k) => Err(format!("Ok({k}) instead of Ok({want})")),
        Err(e) => Err(format!("{e:?}")),
    }
}

/// The exact bytes a correct decoder must produce for `chunk`: the input, or for
/// TRUNC_PREC the truncated input unless the chunk is a plain copy (clevel 0 or
/// incompressible data: then the filters were not applied).
fn expected_for(case: &Case, data: &[u8], truncated: &[u8], chunk: &[u8]) -> Vec<u8> {
    let memcpyed = chunk.len() > 2 && chunk[2] & 0x2 != 0;
    if memcpyed {
        data.to_vec()
    } else {
        let _ = case;
        truncated.to_vec()
    }
}

/// The reference's getitem decodes a block straight into `dest` when the block
/// starts inside the request and is exactly as long as the whole request, even
/// when it is not the first block touched, overwriting the bytes already there.
/// True when the range `lo..hi` of a `size`-byte chunk with blocks of `bs` bytes
/// hits that case.
fn reference_getitem_aliases(bs: usize, size: usize, lo: usize, hi: usize) -> bool {
    let first = lo / bs;
    let last = (hi - 1) / bs;
    (first + 1..=last).any(|j| (bs.min(size - j * bs)) == hi - lo)
}

/// Checks one case, noting every outcome in `rep`: (a) our chunk, (b) the
/// reference's chunk, (c) getitem, (d) header and size agreement (see the
/// crate's doc comment). A case is counted in `rep.cases` unless (d) stops it.
pub(crate) fn run_case(case: &Case, rep: &mut Report) {
    let data = gen_data(case);
    let truncated = expected_output(case, &data);
    let known = case.known_ref_bug_class();

    // ---- (a) our chunk
    let ours_chunk = compress_ours(case, rep, &data);
    decode_our_chunk(case, rep, &data, &truncated, ours_chunk.as_deref());

    // ---- (b) the reference's chunk
    let ref_chunk = compress_reference(case, rep, &data, ours_chunk.as_deref());
    let (ref_decoded, ref_self_ok) =
        decode_reference_chunk(case, rep, &data, &truncated, known, ref_chunk.as_deref());

    // ---- (c) getitem
    check_getitem(
        case,
        rep,
        &data,
        &truncated,
        ours_chunk.as_deref(),
        ref_chunk.as_deref(),
        ref_decoded.as_deref(),
    );

    // ---- (d) header and size agreement with automatic blocksize
    if compare_header_and_size(
        case,
        rep,
        known,
        ref_self_ok,
        ours_chunk.as_deref(),
        ref_chunk.as_deref(),
    )
    .is_break()
    {
        return;
    }
    rep.cases += 1;
}

/// (a) Our chunk, compressed into a buffer of nbytes + 32 bytes; `None` (a hard
/// failure) when ours cannot.
fn compress_ours(case: &Case, rep: &mut Report, data: &[u8]) -> Option<Vec<u8>> {
    let ours_p = case.ours();
    let mut dest = vec![0u8; case.size + 32];
    match chunk::compress_into(&ours_p, data, &mut dest) {
        Ok(0) => {
            rep.hard(
                "ours compress did not fit",
                case,
                "ours: compress_into returned 0 (did not fit) with a size+32 buffer",
            );
            None
        }
        Ok(n) => Some(dest[..n].to_vec()),
        Err(e) => {
            rep.hard(
                "ours compress failed",
                case,
                format!("ours: compress_into failed: {e:?}"),
            );
            None
        }
    }
}

/// (a) Our chunk decoded by ours and by the reference: both must give exactly
/// the expected bytes.
fn decode_our_chunk(
    case: &Case,
    rep: &mut Report,
    data: &[u8],
    truncated: &[u8],
    ours_chunk: Option<&[u8]>,
) {
    let lib = reflib();
    if let Some(oc) = &ours_chunk {
        let expected = expected_for(case, data, truncated, oc);
        match ours_decompress(case, oc) {
            Ok(out) if out == expected => {}
            Ok(out) => rep.hard(
                "ours->ours wrong bytes",
                case,
                format!("ours->ours: wrong bytes: {}", first_diff(&out, &expected)),
            ),
            Err(e) => rep.hard(
                "ours->ours decode fails",
                case,
                format!("ours->ours: decompress failed: {e}"),
            ),
        }
        let r = lib.decompress(case.ref_threads(), oc, case.size);
        if r.overrun > 0 {
            rep.refbug(
                "decompress writes past destsize (on our chunk)",
                case,
                format!("{} bytes past", r.overrun),
            );
        }
        if r.rc != case.size as i32 {
            rep.hard(
                "ours->reference decode fails",
                case,
                format!(
                    "ours->reference: reference decompress returned {} (want {})",
                    r.rc, case.size
                ),
            );
        } else if r.out != expected {
            rep.hard(
                "ours->reference wrong bytes",
                case,
                format!(
                    "ours->reference: wrong bytes: {}",
                    first_diff(&r.out, &expected)
                ),
            );
        }
    }
}

/// (b) The reference's chunk for the same parameters; `None` when the
/// reference refuses (a difference, not a failure, when ours accepts).
fn compress_reference(
    case: &Case,
    rep: &mut Report,
    data: &[u8],
    ours_chunk: Option<&[u8]>,
) -> Option<Vec<u8>> {
    let lib = reflib();
    let (ref_res, overrun) = lib.compress_chunk(&case.ref_params(), data);
    if overrun > 0 {
        rep.refbug(
            "compress writes past dest (nbytes + BLOSC2_MAX_OVERHEAD)",
            case,
            format!(
                "{overrun} bytes past the {}-byte buffer, rc={:?}",
                case.size + 32,
                ref_res.as_ref().map(|c| c.len())
            ),
        );
    }
    match ref_res {
        Ok(c) => Some(c),
        Err(rc) => {
            if ours_chunk.is_some() {
                rep.soft(
                    "reference refuses to compress, ours accepts",
                    case,
                    format!("reference rc={rc}"),
                );
            }
            None
        }
    }
}

/// (b) The reference's chunk decoded by the reference and by ours: where the
/// reference is right ours must give the same bytes; where it is wrong or fails
/// (a reference bug) ours may refuse but never succeed with wrong bytes.
/// Returns the reference's decode when it is right, and whether it is.
fn decode_reference_chunk(
    case: &Case,
    rep: &mut Report,
    data: &[u8],
    truncated: &[u8],
    known: Option<&'static str>,
    ref_chunk: Option<&[u8]>,
) -> (Option<Vec<u8>>, bool) {
    let lib = reflib();
    // The reference chunk's decode, when the reference gets it right.
    let mut ref_decoded: Option<Vec<u8>> = None;
    // Whether the reference decodes its own chunk correctly (else (d) is moot).
    let mut ref_self_ok = false;
    if let Some(rc_chunk) = &ref_chunk {
        let expected = expected_for(case, data, truncated, rc_chunk);
        let r = lib.decompress(case.ref_threads(), rc_chunk, case.size);
        if r.overrun > 0 {
            rep.refbug(
                "decompress writes past destsize (own chunk)",
                case,
                format!("{} bytes past", r.overrun),
            );
        }
        let own = r.out;
        let ours = ours_decompress(case, rc_chunk);
        let class = known.unwrap_or(if case.p.use_dict {
            "use_dict (new class)"
        } else {
            "new class"
        });
        if r.rc == case.size as i32 {
            if own != expected {
                rep.refbug(
                    &format!("decodes its own chunk to wrong bytes ({class})"),
                    case,
                    first_diff(&own, &expected),
                );
                match &ours {
                    Ok(o) if *o == own || *o == expected => {}
                    Ok(o) => rep.hard(
                        "reference->ours wrong bytes",
                        case,
                        format!("reference->ours: bytes match neither the reference's decode nor the input: {}", first_diff(o, &expected)),
                    ),
                    Err(e) => rep.refbug(
                        &format!("own chunk decoded wrongly by the reference, refused by ours ({class})"),
                        case,
                        format!("ours: {e}"),
                    ),
                }
            } else {
                ref_self_ok = true;
                match &ours {
                    Ok(o) if *o == own => ref_decoded = Some(own),
                    Ok(o) => rep.hard("reference->ours wrong bytes", case, format!("reference->ours: wrong bytes: {}", first_diff(o, &own))),
                    Err(e) if known.is_some() => rep.refbug(
                        &format!("chunk of a buggy class decoded right by the reference (by luck?), refused by ours ({class})"),
                        case,
                        format!("ours: {e}"),
                    ),
                    Err(e) => rep.hard("reference->ours decode fails", case, format!("reference->ours: decompress failed: {e}")),
                }
            }
        } else {
            rep.refbug(
                &if rc_chunk.len() >= 32 && rc_chunk[2] & 0x2 != 0 && rc_chunk[31] & 0x1 != 0 {
                    "memcpyed chunk keeps the use-dict flag, then cannot decode it".to_string()
                } else if rc_chunk.len() >= 32 && rc_chunk[31] & 0x70 != 0 {
                    format!("cannot decode its own special-value chunk ({class})")
                } else {
                    format!("cannot decode its own chunk ({class})")
                },
                case,
                format!("reference decompress rc={}", r.rc),
            );
            if let Ok(o) = &ours {
                if *o != expected {
                    rep.hard(
                        "reference->ours wrong bytes",
                        case,
                        format!(
                            "reference->ours: success with wrong bytes on a chunk the reference cannot decode: {}",
                            first_diff(o, &expected)
                        ),
                    );
                }
            }
        }
    }
    (ref_decoded, ref_self_ok)
}

/// (c) getitem on the case's ranges: ours on our chunk and on the reference's
/// (where the reference decodes it right), and the reference on ours.
fn check_getitem(
    case: &Case,
    rep: &mut Report,
    data: &[u8],
    truncated: &[u8],
    ours_chunk: Option<&[u8]>,
    ref_chunk: Option<&[u8]>,
    ref_decoded: Option<&[u8]>,
) {
    let lib = reflib();
    let ts = case.p.typesize as usize;
    for &(start, n) in &case.ranges {
        let lo = start as usize * ts;
        let hi = lo + n as usize * ts;
        if let Some(oc) = &ours_chunk {
            let expected = expected_for(case, data, truncated, oc);
            let want = &expected[lo..hi];
            match ours_getitem(case, oc, start, n) {
                Ok(g) if g == want => {}
                Ok(g) => rep.hard(
                    "ours getitem on our chunk wrong bytes",
                    case,
                    format!(
                        "ours getitem({start},{n}) on our chunk: wrong bytes: {}",
                        first_diff(&g, want)
                    ),
                ),
                Err(e) => rep.hard(
                    "ours getitem on our chunk failed",
                    case,
                    format!("ours getitem({start},{n}) on our chunk failed: {e}"),
                ),
            }
            let r = lib.getitem(case.ref_threads(), oc, start, n, hi - lo);
            if r.overrun > 0 {
                rep.refbug(
                    "getitem writes past destsize (on our chunk)",
                    case,
                    format!("{} bytes past", r.overrun),
                );
            }
            if r.rc != (hi - lo) as i32 || r.out != want {
                let h = chunk::header(oc).ok();
                let bs = h.map(|h| h.blocksize as usize).unwrap_or(0);
                let dict = h.is_some_and(|h| h.use_dict());
                let spans = bs > 0 && lo / bs != (hi - 1) / bs;
                let class = if case.pipeline.has_delta() {
                    Some("getitem on delta chunks")
                } else if spans && reference_getitem_aliases(bs, case.size, lo, hi) {
                    Some("getitem spanning blocks where a later block is as long as the request")
                } else if dict {
                    Some("getitem on dictionary chunks")
                } else {
                    None
                };
                let what = if r.rc != (hi - lo) as i32 {
                    format!("rc={}", r.rc)
                } else {
                    first_diff(&r.out, want)
                };
                // The same range through the reference on its own chunk, for the record.
                let own = match (&ref_chunk, &ref_decoded) {
                    (Some(rc_chunk), Some(dec)) => {
                        let r2 = lib.getitem(case.ref_threads(), rc_chunk, start, n, hi - lo);
                        if r2.rc == (hi - lo) as i32 && r2.out == dec[lo..hi] {
                            "; on its own chunk it is right".to_string()
                        } else {
                            format!("; on its own chunk too (rc={})", r2.rc)
                        }
                    }
                    _ => String::new(),
                };
                let msg = format!(
                    "reference getitem({start},{n}) on our chunk: {what} (chunk blocksize {bs}){own}"
                );
                match class {
                    Some(c) => rep.refbug(c, case, msg),
                    None => rep.hard("reference getitem on our chunk", case, msg),
                }
            }
        }
        if let (Some(rc_chunk), Some(dec)) = (&ref_chunk, &ref_decoded) {
            match ours_getitem(case, rc_chunk, start, n) {
                Ok(g) if g == dec[lo..hi] => {}
                Ok(g) => rep.hard(
                    "ours getitem on the reference chunk wrong bytes",
                    case,
                    format!(
                        "ours getitem({start},{n}) on the reference chunk: wrong bytes: {}",
                        first_diff(&g, &dec[lo..hi])
                    ),
                ),
                Err(e) => rep.hard(
                    "ours getitem on the reference chunk failed",
                    case,
                    format!("ours getitem({start},{n}) on the reference chunk failed: {e}"),
                ),
            }
        }
    }
}

/// (d) With automatic blocksize, outside the known reference-bug classes and
/// when the reference decodes its own chunk right: the 32 header bytes except
/// cbytes are equal and the sizes are within 1% (enforced for some codecs,
/// reported for the others). Breaks, leaving the case uncounted, on a
/// dictionary chunk the reference stored as a plain copy.
fn compare_header_and_size(
    case: &Case,
    rep: &mut Report,
    known: Option<&'static str>,
    ref_self_ok: bool,
    ours_chunk: Option<&[u8]>,
    ref_chunk: Option<&[u8]>,
) -> ControlFlow<()> {
    if case.p.blocksize == 0 && known.is_none() && ref_self_ok {
        if let (Some(oc), Some(rc_chunk)) = (&ours_chunk, &ref_chunk) {
            if case.p.use_dict && rc_chunk.get(2).is_some_and(|f| f & 0x02 != 0) {
                // The reference keeps the dictionary flag when it falls back to a
                // plain copy (and then usually cannot decode it); we clear it.
                rep.refbug(
                    "use_dict chunk stored as a plain copy keeps the dictionary flag",
                    case,
                    "header not compared",
                );
                return ControlFlow::Break(());
            }
            rep.header_compared += 1;
            // Dictionary chunks: sizes are reported, not enforced (see docs/features.md).
            let strict = !case.p.use_dict
                && matches!(
                    case.p.compcode,
                    codec::BLOSCLZ | codec::LZ4 | codec::LZ4HC | codec::ZSTD
                );
            let name = codec_name(case.p.compcode);
            let mut diffs = Vec::new();
            let mut at = Vec::new();
            for i in (0..32).filter(|i| !(12..16).contains(i)) {
                if oc.get(i) != rc_chunk.get(i) {
                    at.push(i);
                    diffs.push(format!(
                        "byte {i}: ours {:?} ref {:?}",
                        oc.get(i),
                        rc_chunk.get(i)
                    ));
                }
            }
            if !diffs.is_empty() {
                let cat = format!("{name} header differs at bytes {at:?}");
                let msg = format!(
                    "header differs (cbytes ours {} ref {}): {}",
                    oc.len(),
                    rc_chunk.len(),
                    diffs.join(", ")
                );
                if strict {
                    rep.hard(&cat, case, msg);
                } else {
                    rep.soft(&cat, case, msg);
                }
            }
            let (a, b) = (oc.len() as f64, rc_chunk.len() as f64);
            rep.size_deltas.push(a / b - 1.0);
            if (a - b).abs() * 100.0 > a.max(b) {
                let cat = format!("{name} compressed size differs by >1%");
                let msg = format!(
                    "ours {} ref {} ({:+.2}%)",
                    oc.len(),
                    rc_chunk.len(),
                    (a / b - 1.0) * 100.0
                );
                if strict {
                    rep.hard(&cat, case, msg);
                } else {
                    rep.soft(&cat, case, msg);
                }
            } else if oc.len() != rc_chunk.len() {
                rep.soft(
                    &format!("{name} sizes differ (within 1%)"),
                    case,
                    format!("ours {} ref {}", oc.len(), rc_chunk.len()),
                );
            }
        }
    }
    ControlFlow::Continue(())
}
