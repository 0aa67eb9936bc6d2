// A Go program calling libblosc2 (libblosc2-rs) through cgo.
//
//	PKG_CONFIG_PATH=$PREFIX/lib/pkgconfig go run .
//
// Compresses a slice of float64 with each codec, decompresses and checks it,
// then builds an in-memory super-chunk and reads it back.
package main

/*
#cgo pkg-config: blosc2
#include <blosc2.h>
#include <stdlib.h>

static blosc2_schunk *new_schunk(int typesize, int compcode) {
	blosc2_cparams cp = BLOSC2_CPARAMS_DEFAULTS;
	cp.typesize = typesize;
	cp.compcode = (uint8_t)compcode;
	blosc2_dparams dp = BLOSC2_DPARAMS_DEFAULTS;
	blosc2_storage st = BLOSC2_STORAGE_DEFAULTS;
	st.contiguous = true;
	st.cparams = &cp;
	st.dparams = &dp;
	return blosc2_schunk_new(&st);
}
*/
import "C"

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math"
	"os"
	"unsafe"
)

func compress(data []byte, typesize, clevel int) ([]byte, error) {
	out := make([]byte, len(data)+C.BLOSC2_MAX_OVERHEAD)
	n := C.blosc2_compress(C.int(clevel), C.BLOSC_SHUFFLE, C.int32_t(typesize),
		unsafe.Pointer(&data[0]), C.int32_t(len(data)),
		unsafe.Pointer(&out[0]), C.int32_t(len(out)))
	if n <= 0 {
		return nil, fmt.Errorf("blosc2_compress: %d", int(n))
	}
	return out[:n], nil
}

func decompress(chunk []byte, nbytes int) ([]byte, error) {
	out := make([]byte, nbytes)
	n := C.blosc2_decompress(unsafe.Pointer(&chunk[0]), C.int32_t(len(chunk)),
		unsafe.Pointer(&out[0]), C.int32_t(nbytes))
	if int(n) != nbytes {
		return nil, fmt.Errorf("blosc2_decompress: %d", int(n))
	}
	return out, nil
}

func run() error {
	C.blosc2_init()
	defer C.blosc2_destroy()
	fmt.Println("libblosc2", C.GoString(C.blosc2_get_version_string()))

	var buf bytes.Buffer
	for i := 0; i < 250000; i++ {
		_ = binary.Write(&buf, binary.LittleEndian, math.Sin(float64(i)/1000))
	}
	data := buf.Bytes()
	for _, codec := range []string{"blosclz", "lz4", "lz4hc", "zlib", "zstd"} {
		name := C.CString(codec)
		C.blosc1_set_compressor(name)
		C.free(unsafe.Pointer(name))
		chunk, err := compress(data, 8, 5)
		if err != nil {
			return err
		}
		back, err := decompress(chunk, len(data))
		if err != nil {
			return err
		}
		if !bytes.Equal(back, data) {
			return fmt.Errorf("%s: round trip differs", codec)
		}
		fmt.Printf("%-8s %d -> %d bytes, round trip ok\n", codec, len(data), len(chunk))
	}

	sc := C.new_schunk(8, C.BLOSC_ZSTD)
	if sc == nil {
		return fmt.Errorf("blosc2_schunk_new failed")
	}
	defer C.blosc2_schunk_free(sc)
	part := data[:80000]
	for i := 0; i < 3; i++ {
		if n := C.blosc2_schunk_append_buffer(sc, unsafe.Pointer(&part[0]), C.int32_t(len(part))); int(n) != i+1 {
			return fmt.Errorf("append: %d", int(n))
		}
	}
	out := make([]byte, len(part))
	for i := 0; i < 3; i++ {
		n := C.blosc2_schunk_decompress_chunk(sc, C.int64_t(i), unsafe.Pointer(&out[0]), C.int32_t(len(out)))
		if int(n) != len(part) || !bytes.Equal(out, part) {
			return fmt.Errorf("super-chunk chunk %d: %d", i, int(n))
		}
	}
	fmt.Printf("super-chunk: %d chunks, nbytes %d, cbytes %d, read back ok\n",
		int64(sc.nchunks), int64(sc.nbytes), int64(sc.cbytes))
	return nil
}

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "FAIL:", err)
		os.Exit(1)
	}
	fmt.Println("go-cgo: OK")
}
