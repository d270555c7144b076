/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Stubs for unit tests that build the code under test with its neighbours
 * replaced (SPDK's DEFINE_STUB in spirit; written here). One line a stub:
 *
 *	DEFINE_STUB(blue_mr_lookup, struct ordk_mr_int *, (struct ordk_dev *d, uint32_t k), NULL);
 *	DEFINE_STUB_V(rc_recv_keys_release, (struct ordk_qp *qp, bool push));
 *
 * DEFINE_STUB(fn, type, (args), value) defines fn, which returns ut_<fn>, a
 * variable that starts at @p value (which may be a braced initializer); a
 * test changes what fn returns with MOCK_SET(fn, v). DEFINE_STUB_V(fn, (args))
 * defines a fn that does nothing. Either counts its calls in ut_<fn>_calls.
 * The stub is declared before it is defined (-Wmissing-prototypes), and its
 * parameters may go unused (-Wunused-parameter is off inside the macro).
 *
 * DEFINE_STATIC_STUB and DEFINE_STATIC_STUB_V make static ones: the trivial
 * entries of an ops table the test fills in itself.
 *
 * The variables are per test binary and Criterion runs each test in a
 * process of its own, so a MOCK_SET lasts for the test that made it.
 */
#ifndef ORDK_UT_STUB_H
#define ORDK_UT_STUB_H

#define UT_STUB_BODY_BEGIN                                                \
	_Pragma("GCC diagnostic push")                                    \
	_Pragma("GCC diagnostic ignored \"-Wunused-parameter\"")
#define UT_STUB_BODY_END _Pragma("GCC diagnostic pop")
/* takes the ';' after a stub, which would be an empty declaration */
#define UT_STUB_END_ _Static_assert(1, "")

/* fn counting its calls, then doing @p body */
#define UT_STUB_FN_(storage, fn, ret, args, body)                         \
	static unsigned int ut_##fn##_calls;                              \
	storage ret fn args;                                              \
	UT_STUB_BODY_BEGIN                                                \
	storage ret fn args                                               \
	{                                                                 \
		ut_##fn##_calls++;                                        \
		body                                                      \
	}                                                                 \
	UT_STUB_BODY_END                                                  \
	UT_STUB_END_

#define UT_STUB_(storage, fn, ret, args, ...)                             \
	static ret ut_##fn = __VA_ARGS__;                                 \
	UT_STUB_FN_(storage, fn, ret, args, return ut_##fn;)
#define UT_STUB_V_(storage, fn, args) UT_STUB_FN_(storage, fn, void, args, )

/** fn(args) returning ut_<fn> (initially the value, settable with MOCK_SET). */
#define DEFINE_STUB(fn, ret, args, ...) UT_STUB_(, fn, ret, args, __VA_ARGS__)
/** fn(args) doing nothing. */
#define DEFINE_STUB_V(fn, args) UT_STUB_V_(, fn, args)
/** The same as static functions (an ops table's trivial entries). */
#define DEFINE_STATIC_STUB(fn, ret, args, ...) UT_STUB_(static, fn, ret, args, __VA_ARGS__)
#define DEFINE_STATIC_STUB_V(fn, args) UT_STUB_V_(static, fn, args)

/** What the stub fn returns from now on. */
#define MOCK_SET(fn, val) (ut_##fn = (val))

#endif /* ORDK_UT_STUB_H */
