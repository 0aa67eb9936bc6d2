//! The `#[repr(C)]` mirrors in `blosc2::ffi::types` must have exactly the layout
//! C code sees through `include/blosc2.h`: this test compiles a C program that
//! prints sizeof/offsetof with gcc and compares them with `offset_of!`.

use blosc2::ffi::types::*;
use std::mem::{offset_of, size_of};
use std::process::Command;

macro_rules! fields {
    ($t:ty, $cname:expr, [$($f:ident),*]) => {{
        let mut v = vec![format!("{} sizeof {}", $cname, size_of::<$t>())];
        $( v.push(format!("{} {} {}", $cname, stringify!($f), offset_of!($t, $f))); )*
        (v, $cname, vec![$(stringify!($f)),*])
    }};
}

#[test]
fn mirrors_match_c_layout() {
    let specs = vec![
        fields!(
            blosc2_cparams,
            "blosc2_cparams",
            [
                compcode,
                compcode_meta,
                clevel,
                use_dict,
                typesize,
                nthreads,
                blocksize,
                splitmode,
                schunk,
                filters,
                filters_meta,
                prefilter,
                preparams,
                tuner_params,
                tuner_id,
                instr_codec,
                codec_params,
                filter_params
            ]
        ),
        fields!(
            blosc2_dparams,
            "blosc2_dparams",
            [nthreads, schunk, postfilter, postparams, typesize]
        ),
        fields!(
            blosc2_prefilter_params,
            "blosc2_prefilter_params",
            [
                user_data,
                input,
                output,
                output_size,
                output_typesize,
                output_offset,
                nchunk,
                nblock,
                tid,
                ttmp,
                ttmp_nbytes,
                ctx,
                output_is_disposable
            ]
        ),
        fields!(
            blosc2_postfilter_params,
            "blosc2_postfilter_params",
            [
                user_data,
                input,
                output,
                size,
                typesize,
                offset,
                nchunk,
                nblock,
                tid,
                ttmp,
                ttmp_nbytes,
                ctx
            ]
        ),
        fields!(blosc2_io, "blosc2_io", [id, name, params]),
        fields!(
            blosc2_storage,
            "blosc2_storage",
            [contiguous, urlpath, cparams, dparams, io]
        ),
        fields!(
            blosc2_stdio_mmap,
            "blosc2_stdio_mmap",
            [
                mode,
                initial_mapping_size,
                needs_free,
                addr,
                urlpath,
                file_size,
                mapping_size,
                is_memory_only,
                file,
                fd,
                access_flags,
                map_flags
            ]
        ),
        fields!(
            blosc2_codec,
            "blosc2_codec",
            [compcode, compname, complib, version, encoder, decoder]
        ),
        fields!(
            blosc2_filter,
            "blosc2_filter",
            [id, name, version, forward, backward]
        ),
        fields!(
            blosc2_tuner,
            "blosc2_tuner",
            [init, next_blocksize, next_cparams, update, free, id, name]
        ),
        fields!(blosc_timestamp_t, "blosc_timestamp_t", [tv_sec, tv_nsec]),
        fields!(
            blosc2::ffi::io::blosc2_io_cb,
            "blosc2_io_cb",
            [
                id,
                name,
                is_allocation_necessary,
                open,
                close,
                size,
                write,
                read,
                truncate,
                destroy
            ]
        ),
        fields!(
            blosc2::ffi::io::blosc2_stdio_file,
            "blosc2_stdio_file",
            [file]
        ),
        fields!(
            blosc2::ffi::schunk::blosc2_stdio_params,
            "blosc2_stdio_params",
            [locking]
        ),
        fields!(
            blosc2::ffi::schunk::blosc2_schunk,
            "blosc2_schunk",
            [
                version,
                typesize,
                blocksize,
                chunksize,
                filters,
                nchunks,
                current_nchunk,
                nbytes,
                cbytes,
                data,
                data_len,
                storage,
                frame,
                cctx,
                dctx,
                metalayers,
                nmetalayers,
                vlmetalayers,
                nvlmetalayers,
                tuner_params,
                tuner_id,
                ndim,
                blockshape,
                view,
                change_tick
            ]
        ),
        fields!(
            blosc2::ffi::b2nd::chunk_cache_s,
            "struct chunk_cache_s",
            [data, nchunk]
        ),
        fields!(
            blosc2::ffi::b2nd::b2nd_array_t,
            "b2nd_array_t",
            [
                sc,
                shape,
                chunkshape,
                extshape,
                blockshape,
                extchunkshape,
                nitems,
                chunknitems,
                extnitems,
                blocknitems,
                extchunknitems,
                ndim,
                chunk_cache,
                item_array_strides,
                item_chunk_strides,
                item_extchunk_strides,
                item_block_strides,
                block_chunk_strides,
                chunk_array_strides,
                dtype,
                dtype_format,
                last_tick
            ]
        ),
    ];
    let mut c = String::from("#include <blosc2.h>\n#include <b2nd.h>\n#include <blosc2/blosc2-stdio.h>\n#include <stdio.h>\n#include <stddef.h>\nint main(void) {\n");
    let mut expected = Vec::new();
    for (lines, cname, fields) in &specs {
        c.push_str(&format!(
            "  printf(\"{cname} sizeof %zu\\n\", sizeof({cname}));\n"
        ));
        for f in fields {
            c.push_str(&format!(
                "  printf(\"{cname} {f} %zu\\n\", offsetof({cname}, {f}));\n"
            ));
        }
        expected.extend(lines.iter().cloned());
    }
    c.push_str("  return 0;\n}\n");
    let dir = std::env::temp_dir().join(format!("blosc2-layout-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let src = dir.join("layout.c");
    let exe = dir.join("layout");
    std::fs::write(&src, c).unwrap();
    let inc = concat!(env!("CARGO_MANIFEST_DIR"), "/include");
    // -O2 lets gcc drop the header's unused static helpers, so nothing needs linking.
    let st = Command::new("cc")
        .args(["-std=c11", "-O2", "-I", inc])
        .arg(&src)
        .arg("-o")
        .arg(&exe)
        .status();
    let st = st.expect("a C compiler (cc) is needed for this test");
    assert!(st.success(), "compiling the layout probe failed");
    let out = Command::new(&exe).output().unwrap();
    let got: Vec<String> = String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(String::from)
        .collect();
    let _ = std::fs::remove_dir_all(&dir);
    assert_eq!(got, expected);
}
