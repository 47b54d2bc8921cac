// How the core's larger functions are compiled: header-only (the default) or once, in the unit of a
// program that defines them (FGSEQ_COMPILED).
//
// Header-only, every function of the core is inline and defined in its header, and a program includes
// the headers it uses (tests/cpp does). With FGSEQ_COMPILED (the package: src/Makevars), the functions
// declared FGSEQ_API are declared in their headers and defined in one translation unit only: the one that
// defines the macro of their part before it includes the core,
//   FGSEQ_DEFINE_COMMON  the passes and the linear algebra every fit shares (common/: the statistics
//                        pass, whitening, the pseudo-inverse, the Newton solver, the blocked products of
//                        kernels.hpp, the design's passes; greedy/: the greedy path and the original
//                        scale), src/core.cpp;
//   FGSEQ_DEFINE_GLM     the GLM fits that fit_path() calls (sequence/fit_glm.hpp), src/glm.cpp.
// The other units then parse only the declarations: g++ instantiates the Eigen templates of every inline
// body it reads, called or not, and compiles the code of every body called; so a unit that defines
// nothing of a part pays neither for it (the package's compile, see src/Makevars).
// An instance of a function template that several units would compile alike (the kernels' dispatch in
// kernels.hpp, the products over a matrix's rows in glm/cross.hpp) is named, with FGSEQ_COMPILED, as
// FGSEQ_COMMON_INSTANCE <the instance>: an explicit instantiation in the unit that defines
// FGSEQ_DEFINE_COMMON, an explicit instantiation declaration (extern template) in every other.
#ifndef FGSEQ_COMMON_COMPILED_HPP
#define FGSEQ_COMMON_COMPILED_HPP

#ifdef FGSEQ_COMPILED
#define FGSEQ_API
#ifdef FGSEQ_DEFINE_COMMON
#define FGSEQ_COMMON_INSTANCE template
#else
#define FGSEQ_COMMON_INSTANCE extern template
#endif
#else
#define FGSEQ_API inline
#ifndef FGSEQ_DEFINE_COMMON
#define FGSEQ_DEFINE_COMMON
#endif
#ifndef FGSEQ_DEFINE_GLM
#define FGSEQ_DEFINE_GLM
#endif
#endif

#endif
