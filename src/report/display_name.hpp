// Names as a terminal shows them. CUDA kernels and C++ operators carry their whole signature
// ("void at::native::reduce_kernel<128, 4, at::native::ReduceOp<float, …>>(…)", 400 characters);
// the text view shortens them for display only — JSON, CSV, HTML and the trace keep the full name.
#pragma once

#include <string>
#include <string_view>

namespace jouleprof::report {

// A leading "void " dropped, template argument lists collapsed to "<…>" and parameter lists to
// "(…)". Only brackets that follow a name are touched: "(anonymous namespace)", "[unattributed]"
// and "operator<" stay as they are. A name without such lists is returned unchanged.
// `keep_templates` leaves template argument lists whole: what tells apart two kernels whose
// shortened names would be the same ("cutlass::Kernel2<…>(…)" for every CUTLASS GEMM).
std::string shorten_for_display(std::string_view name, bool keep_templates = false);

}  // namespace jouleprof::report
