// Which cuBLASLt FP8 GEMM configurations run on this GPU (fa-bench #11 calibration probe).
#include <cublasLt.h>
#include <cuda_runtime.h>
#include <cstdio>
#include <vector>
struct V { const char* name; cudaDataType_t ctype, dtype; bool scales, sep_c, fast, dscale; };
int main() {
    const int n = 4096;
    void *a, *b, *c, *d, *sc, *ws;
    cudaMalloc(&a, size_t(n) * n); cudaMalloc(&b, size_t(n) * n);
    cudaMalloc(&c, size_t(n) * n * 4); cudaMalloc(&d, size_t(n) * n * 4);
    cudaMemset(a, 0, size_t(n) * n); cudaMemset(b, 0, size_t(n) * n);
    const size_t wsb = size_t(32) << 20; cudaMalloc(&ws, wsb);
    float ones[4] = {1, 1, 1, 1}; cudaMalloc(&sc, sizeof ones); cudaMemcpy(sc, ones, sizeof ones, cudaMemcpyHostToDevice);
    cublasLtHandle_t lt; cublasLtCreate(&lt);
    printf("cublasLt version %zu\n", cublasLtGetVersion());
    std::vector<V> vs = {
        {"bf16 D, C=D, scales", CUDA_R_16BF, CUDA_R_16BF, true, false, false, false},
        {"bf16 D, C separate, scales", CUDA_R_16BF, CUDA_R_16BF, true, true, false, false},
        {"bf16 D, C=D, no scales", CUDA_R_16BF, CUDA_R_16BF, false, false, false, false},
        {"bf16 D, C separate, no scales", CUDA_R_16BF, CUDA_R_16BF, false, true, false, false},
        {"bf16 D, C separate, scales, fast accum", CUDA_R_16BF, CUDA_R_16BF, true, true, true, false},
        {"fp16 D, C separate, scales", CUDA_R_16F, CUDA_R_16F, true, true, false, false},
        {"fp32 D, C separate, scales", CUDA_R_32F, CUDA_R_32F, true, true, false, false},
        {"e4m3 D, bf16 C, scales + D scale", CUDA_R_16BF, CUDA_R_8F_E4M3, true, true, false, true},
    };
    for (const V& v : vs) {
        cublasLtMatmulDesc_t op; cublasLtMatmulDescCreate(&op, CUBLAS_COMPUTE_32F, CUDA_R_32F);
        cublasOperation_t ta = CUBLAS_OP_T, tb = CUBLAS_OP_N;
        cublasLtMatmulDescSetAttribute(op, CUBLASLT_MATMUL_DESC_TRANSA, &ta, sizeof ta);
        cublasLtMatmulDescSetAttribute(op, CUBLASLT_MATMUL_DESC_TRANSB, &tb, sizeof tb);
        const float* sa = (const float*)sc; const float* sb = sa + 1; const float* sd = sa + 2;
        if (v.scales) {
            cublasLtMatmulDescSetAttribute(op, CUBLASLT_MATMUL_DESC_A_SCALE_POINTER, &sa, sizeof sa);
            cublasLtMatmulDescSetAttribute(op, CUBLASLT_MATMUL_DESC_B_SCALE_POINTER, &sb, sizeof sb);
        }
        if (v.dscale) cublasLtMatmulDescSetAttribute(op, CUBLASLT_MATMUL_DESC_D_SCALE_POINTER, &sd, sizeof sd);
        if (v.fast) { int8_t f = 1; cublasLtMatmulDescSetAttribute(op, CUBLASLT_MATMUL_DESC_FAST_ACCUM, &f, sizeof f); }
        cublasLtMatrixLayout_t la, lb, lc, ld;
        cublasLtMatrixLayoutCreate(&la, CUDA_R_8F_E4M3, n, n, n);
        cublasLtMatrixLayoutCreate(&lb, CUDA_R_8F_E4M3, n, n, n);
        cublasLtMatrixLayoutCreate(&lc, v.ctype, n, n, n);
        cublasLtMatrixLayoutCreate(&ld, v.dtype, n, n, n);
        cublasLtMatmulPreference_t pref; cublasLtMatmulPreferenceCreate(&pref);
        cublasLtMatmulPreferenceSetAttribute(pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &wsb, sizeof wsb);
        cublasLtMatmulHeuristicResult_t res[8] = {}; int found = 0;
        cublasStatus_t h = cublasLtMatmulAlgoGetHeuristic(lt, op, la, lb, lc, ld, pref, 8, res, &found);
        float one = 1, zero = 0;
        void* cp = v.sep_c ? c : d;
        printf("%-42s heuristic %d found %d:", v.name, int(h), found);
        for (int i = 0; i < found; ++i) {
            cublasStatus_t s = cublasLtMatmul(lt, op, &one, a, la, b, lb, &zero, cp, lc, d, ld, &res[i].algo, ws, wsb, 0);
            cudaError_t e = cudaDeviceSynchronize();
            printf(" [%d ws=%zu st=%d %s]", i, res[i].workspaceSize, int(s), cudaGetErrorName(e));
            if (s == CUBLAS_STATUS_SUCCESS && e == cudaSuccess) {
                cudaEvent_t e0, e1; cudaEventCreate(&e0); cudaEventCreate(&e1);
                cudaEventRecord(e0);
                for (int r = 0; r < 20; ++r) cublasLtMatmul(lt, op, &one, a, la, b, lb, &zero, cp, lc, d, ld, &res[i].algo, ws, wsb, 0);
                cudaEventRecord(e1); cudaEventSynchronize(e1); float ms; cudaEventElapsedTime(&ms, e0, e1);
                printf(" %.1f TFLOP/s", 2.0 * n * n * double(n) * 20 / (ms * 1e9));
                break;
            }
        }
        printf("\n");
    }
    return 0;
}
