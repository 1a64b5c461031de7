#include "report/display_name.hpp"

#include <gtest/gtest.h>

namespace jouleprof::report {
namespace {

TEST(DisplayName, CollapsesTemplateAndParameterListsAndDropsVoid) {
  EXPECT_EQ(shorten_for_display(
                "void at::native::reduce_kernel<128, 4, at::native::ReduceOp<float, "
                "at::native::func_wrapper_t<float, at::native::sum_functor<float, float, "
                "float>::operator()(at::TensorIterator&)::{lambda(float, float)#1}>, unsigned "
                "int, float, 4> >(at::native::ReduceOp<float, at::native::func_wrapper_t<float, "
                "at::native::sum_functor<float, float, float>::operator()(at::TensorIterator&)::"
                "{lambda(float, float)#1}>, unsigned int, float, 4>)"),
            "at::native::reduce_kernel<…>(…)");
  EXPECT_EQ(shorten_for_display("void cutlass::Kernel2<cutlass_80_simt_sgemm_256x128_8x4_nt_align1>"
                                "(cutlass_80_simt_sgemm_256x128_8x4_nt_align1::Params)"),
            "cutlass::Kernel2<…>(…)");
  EXPECT_EQ(shorten_for_display("fmha_cutlassB_f32_aligned_64x64_k64_dropout_sm80(PyTorch"
                                "MemEffAttention::AttentionBackwardKernel<cutlass::arch::Sm80, "
                                "float, true>::Params)"),
            "fmha_cutlassB_f32_aligned_64x64_k64_dropout_sm80(…)");
}

TEST(DisplayName, KeepingTemplatesCollapsesOnlyTheParameters) {
  EXPECT_EQ(shorten_for_display("void cutlass::Kernel2<cutlass_80_simt_sgemm_256x128_8x4_nt_align1>"
                                "(cutlass_80_simt_sgemm_256x128_8x4_nt_align1::Params)",
                                /*keep_templates=*/true),
            "cutlass::Kernel2<cutlass_80_simt_sgemm_256x128_8x4_nt_align1>(…)");
}

TEST(DisplayName, LeavesPlainNamesAndBracketsThatAreNotLists) {
  for (const char* name : {"aten::addmm", "[unattributed]", "encoder/layer_3", "ProfilerStep#2",
                           "autograd::engine::evaluate_function: AddmmBackward0",
                           "at::(anonymous namespace)::kernel", "operator<", "f()"}) {
    EXPECT_EQ(shorten_for_display(name), name);
  }
}

}  // namespace
}  // namespace jouleprof::report
