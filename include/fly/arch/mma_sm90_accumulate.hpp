// total += part for a wgmma accumulator fragment, as one asm statement. With a later batch of
// wgmmas in flight (wgmma.wait_group 1), the finished batch's accumulator may be read but nothing
// outside wgmma may define it: an ordinary `total[i] += part[i]` needs a compiler fence on `part`
// (an empty asm that "defines" it) to stay after the wait, and ptxas then serialises every wgmma
// (C7515). Here the reads are the asm's inputs: a volatile asm after the wait's volatile asm stays
// after it, and `part` is only ever defined by wgmma. Generated for the fragment sizes in use.
#pragma once

#include "fly/arch/mma_sm90.hpp"

namespace fly::gmma {

template <int N>
struct AddAccumulators {
  static_assert(N == 32 || N == 64, "fly::gmma::AddAccumulators: 32 or 64 floats (add a specialization)");
};

template <>
struct AddAccumulators<32> {
  FLY_HOST_DEVICE static void add(float (&total)[32], float const (&part)[32]) {
#if defined(FLY_ARCH_WGMMA_SM90A_ENABLED)
    asm volatile(
        "add.f32 %0, %0, %32;\n" "add.f32 %1, %1, %33;\n" "add.f32 %2, %2, %34;\n" "add.f32 %3, %3, %35;\n" "add.f32 %4, %4, %36;\n" "add.f32 %5, %5, %37;\n" "add.f32 %6, %6, %38;\n" "add.f32 %7, %7, %39;\n" "add.f32 %8, %8, %40;\n" "add.f32 %9, %9, %41;\n" "add.f32 %10, %10, %42;\n" "add.f32 %11, %11, %43;\n" "add.f32 %12, %12, %44;\n" "add.f32 %13, %13, %45;\n" "add.f32 %14, %14, %46;\n" "add.f32 %15, %15, %47;\n" "add.f32 %16, %16, %48;\n" "add.f32 %17, %17, %49;\n" "add.f32 %18, %18, %50;\n" "add.f32 %19, %19, %51;\n" "add.f32 %20, %20, %52;\n" "add.f32 %21, %21, %53;\n" "add.f32 %22, %22, %54;\n" "add.f32 %23, %23, %55;\n" "add.f32 %24, %24, %56;\n" "add.f32 %25, %25, %57;\n" "add.f32 %26, %26, %58;\n" "add.f32 %27, %27, %59;\n" "add.f32 %28, %28, %60;\n" "add.f32 %29, %29, %61;\n" "add.f32 %30, %30, %62;\n" "add.f32 %31, %31, %63;\n"
        : "+f"(total[0]), "+f"(total[1]), "+f"(total[2]), "+f"(total[3]), "+f"(total[4]), "+f"(total[5]), "+f"(total[6]), "+f"(total[7]), "+f"(total[8]), "+f"(total[9]), "+f"(total[10]), "+f"(total[11]), "+f"(total[12]), "+f"(total[13]), "+f"(total[14]), "+f"(total[15]), "+f"(total[16]), "+f"(total[17]), "+f"(total[18]), "+f"(total[19]), "+f"(total[20]), "+f"(total[21]), "+f"(total[22]), "+f"(total[23]), "+f"(total[24]), "+f"(total[25]), "+f"(total[26]), "+f"(total[27]), "+f"(total[28]), "+f"(total[29]), "+f"(total[30]), "+f"(total[31])
        : "f"(part[0]), "f"(part[1]), "f"(part[2]), "f"(part[3]), "f"(part[4]), "f"(part[5]), "f"(part[6]), "f"(part[7]), "f"(part[8]), "f"(part[9]), "f"(part[10]), "f"(part[11]), "f"(part[12]), "f"(part[13]), "f"(part[14]), "f"(part[15]), "f"(part[16]), "f"(part[17]), "f"(part[18]), "f"(part[19]), "f"(part[20]), "f"(part[21]), "f"(part[22]), "f"(part[23]), "f"(part[24]), "f"(part[25]), "f"(part[26]), "f"(part[27]), "f"(part[28]), "f"(part[29]), "f"(part[30]), "f"(part[31]));
#else
    for (int i = 0; i < 32; ++i) total[i] += part[i];
#endif
  }
};

template <>
struct AddAccumulators<64> {
  FLY_HOST_DEVICE static void add(float (&total)[64], float const (&part)[64]) {
#if defined(FLY_ARCH_WGMMA_SM90A_ENABLED)
    asm volatile(
        "add.f32 %0, %0, %64;\n" "add.f32 %1, %1, %65;\n" "add.f32 %2, %2, %66;\n" "add.f32 %3, %3, %67;\n" "add.f32 %4, %4, %68;\n" "add.f32 %5, %5, %69;\n" "add.f32 %6, %6, %70;\n" "add.f32 %7, %7, %71;\n" "add.f32 %8, %8, %72;\n" "add.f32 %9, %9, %73;\n" "add.f32 %10, %10, %74;\n" "add.f32 %11, %11, %75;\n" "add.f32 %12, %12, %76;\n" "add.f32 %13, %13, %77;\n" "add.f32 %14, %14, %78;\n" "add.f32 %15, %15, %79;\n" "add.f32 %16, %16, %80;\n" "add.f32 %17, %17, %81;\n" "add.f32 %18, %18, %82;\n" "add.f32 %19, %19, %83;\n" "add.f32 %20, %20, %84;\n" "add.f32 %21, %21, %85;\n" "add.f32 %22, %22, %86;\n" "add.f32 %23, %23, %87;\n" "add.f32 %24, %24, %88;\n" "add.f32 %25, %25, %89;\n" "add.f32 %26, %26, %90;\n" "add.f32 %27, %27, %91;\n" "add.f32 %28, %28, %92;\n" "add.f32 %29, %29, %93;\n" "add.f32 %30, %30, %94;\n" "add.f32 %31, %31, %95;\n" "add.f32 %32, %32, %96;\n" "add.f32 %33, %33, %97;\n" "add.f32 %34, %34, %98;\n" "add.f32 %35, %35, %99;\n" "add.f32 %36, %36, %100;\n" "add.f32 %37, %37, %101;\n" "add.f32 %38, %38, %102;\n" "add.f32 %39, %39, %103;\n" "add.f32 %40, %40, %104;\n" "add.f32 %41, %41, %105;\n" "add.f32 %42, %42, %106;\n" "add.f32 %43, %43, %107;\n" "add.f32 %44, %44, %108;\n" "add.f32 %45, %45, %109;\n" "add.f32 %46, %46, %110;\n" "add.f32 %47, %47, %111;\n" "add.f32 %48, %48, %112;\n" "add.f32 %49, %49, %113;\n" "add.f32 %50, %50, %114;\n" "add.f32 %51, %51, %115;\n" "add.f32 %52, %52, %116;\n" "add.f32 %53, %53, %117;\n" "add.f32 %54, %54, %118;\n" "add.f32 %55, %55, %119;\n" "add.f32 %56, %56, %120;\n" "add.f32 %57, %57, %121;\n" "add.f32 %58, %58, %122;\n" "add.f32 %59, %59, %123;\n" "add.f32 %60, %60, %124;\n" "add.f32 %61, %61, %125;\n" "add.f32 %62, %62, %126;\n" "add.f32 %63, %63, %127;\n"
        : "+f"(total[0]), "+f"(total[1]), "+f"(total[2]), "+f"(total[3]), "+f"(total[4]), "+f"(total[5]), "+f"(total[6]), "+f"(total[7]), "+f"(total[8]), "+f"(total[9]), "+f"(total[10]), "+f"(total[11]), "+f"(total[12]), "+f"(total[13]), "+f"(total[14]), "+f"(total[15]), "+f"(total[16]), "+f"(total[17]), "+f"(total[18]), "+f"(total[19]), "+f"(total[20]), "+f"(total[21]), "+f"(total[22]), "+f"(total[23]), "+f"(total[24]), "+f"(total[25]), "+f"(total[26]), "+f"(total[27]), "+f"(total[28]), "+f"(total[29]), "+f"(total[30]), "+f"(total[31]), "+f"(total[32]), "+f"(total[33]), "+f"(total[34]), "+f"(total[35]), "+f"(total[36]), "+f"(total[37]), "+f"(total[38]), "+f"(total[39]), "+f"(total[40]), "+f"(total[41]), "+f"(total[42]), "+f"(total[43]), "+f"(total[44]), "+f"(total[45]), "+f"(total[46]), "+f"(total[47]), "+f"(total[48]), "+f"(total[49]), "+f"(total[50]), "+f"(total[51]), "+f"(total[52]), "+f"(total[53]), "+f"(total[54]), "+f"(total[55]), "+f"(total[56]), "+f"(total[57]), "+f"(total[58]), "+f"(total[59]), "+f"(total[60]), "+f"(total[61]), "+f"(total[62]), "+f"(total[63])
        : "f"(part[0]), "f"(part[1]), "f"(part[2]), "f"(part[3]), "f"(part[4]), "f"(part[5]), "f"(part[6]), "f"(part[7]), "f"(part[8]), "f"(part[9]), "f"(part[10]), "f"(part[11]), "f"(part[12]), "f"(part[13]), "f"(part[14]), "f"(part[15]), "f"(part[16]), "f"(part[17]), "f"(part[18]), "f"(part[19]), "f"(part[20]), "f"(part[21]), "f"(part[22]), "f"(part[23]), "f"(part[24]), "f"(part[25]), "f"(part[26]), "f"(part[27]), "f"(part[28]), "f"(part[29]), "f"(part[30]), "f"(part[31]), "f"(part[32]), "f"(part[33]), "f"(part[34]), "f"(part[35]), "f"(part[36]), "f"(part[37]), "f"(part[38]), "f"(part[39]), "f"(part[40]), "f"(part[41]), "f"(part[42]), "f"(part[43]), "f"(part[44]), "f"(part[45]), "f"(part[46]), "f"(part[47]), "f"(part[48]), "f"(part[49]), "f"(part[50]), "f"(part[51]), "f"(part[52]), "f"(part[53]), "f"(part[54]), "f"(part[55]), "f"(part[56]), "f"(part[57]), "f"(part[58]), "f"(part[59]), "f"(part[60]), "f"(part[61]), "f"(part[62]), "f"(part[63]));
#else
    for (int i = 0; i < 64; ++i) total[i] += part[i];
#endif
  }
};

}  // namespace fly::gmma
