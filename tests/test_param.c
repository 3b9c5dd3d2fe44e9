/* test_param.c - the typed parameter parser (base/gs_param.c) and its use:
 * every parameter that the policies and the core declare has a type whose
 * range holds its own default.
 * SPDX-License-Identifier: MIT */
#include <string.h>

#include "../base/gs_param.h"
#include "../policies/registry.h"
#include "../policies/share/share_state.h"
#include "check.h"
#include "testutil.h"

static int parse(const gs_param_spec *sp, const char *v, gs_param_value *out, gs_error *err)
{
    return gs_param_parse("p", v, sp, out, err);
}

static void numbers_and_units(void)
{
    gs_param_spec num = {GS_P_NUM, 0, 10, "GB/s", NULL};
    gs_param_value v;
    gs_error err;
    CHECK(parse(&num, "2.5", &v, &err) == 0 && v.num == 2.5);
    CHECK(parse(&num, "2GB/s", &v, &err) == 0 && v.num == 2);
    CHECK(parse(&num, "1e1", &v, &err) == 0 && v.num == 10);
    static const char *bad[] = {"banana", "", "0x10", "inf", "nan", "1e999", "11", "-1", "2 GB/s", "2MB/s", "+2",
                                " 2", ".5e", "1e", "--1"};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        CHECK_EQ_INT(parse(&num, bad[i], &v, &err), GS_EUSAGE);
        CHECK_STR_HAS(err.msg, "expected number 0..10 GB/s");
    }
    gs_param_spec in = {GS_P_INT, 1, 4096, NULL, NULL};
    CHECK(parse(&in, "16", &v, &err) == 0 && v.i == 16);
    CHECK_EQ_INT(parse(&in, "1.5", &v, &err), GS_EUSAGE);
    CHECK_EQ_INT(parse(&in, "1e2", &v, &err), GS_EUSAGE);
    CHECK_EQ_INT(parse(&in, "4097", &v, &err), GS_EUSAGE);
    CHECK_STR_HAS(err.msg, "--set p='4097': expected integer 1..4096");
}

static void durations_enums_words(void)
{
    gs_param_spec d = {GS_P_DURATION, 0.1, 86400, "s", NULL};
    gs_param_value v;
    gs_error err;
    CHECK(parse(&d, "15", &v, &err) == 0 && v.num == 15);
    CHECK(parse(&d, "500ms", &v, &err) == 0 && v.num == 0.5);
    CHECK(parse(&d, "2m", &v, &err) == 0 && v.num == 120);
    CHECK(parse(&d, "1h", &v, &err) == 0 && v.num == 3600);
    CHECK_EQ_INT(parse(&d, "1e-9", &v, &err), GS_EUSAGE); /* below the floor */
    CHECK_STR_HAS(err.msg, "expected duration 0.1..86400 s");
    CHECK_EQ_INT(parse(&d, "2d", &v, &err), GS_EUSAGE);
    gs_param_spec e = {GS_P_ENUM, 0, 0, NULL, "first|bestfit|demand"};
    CHECK(parse(&e, "bestfit", &v, &err) == 0 && v.choice == 1);
    CHECK_EQ_INT(parse(&e, "best", &v, &err), GS_EUSAGE);
    CHECK_STR_HAS(err.msg, "expected first, bestfit or demand");
    gs_param_spec o = {GS_P_ONOFF, 0, 0, NULL, NULL};
    CHECK(parse(&o, "on", &v, &err) == 0 && v.choice == 1);
    CHECK(parse(&o, "off", &v, &err) == 0 && v.choice == 0);
    CHECK_EQ_INT(parse(&o, "1", &v, &err), GS_EUSAGE);
    gs_param_spec w = {GS_P_DURATION, 0, 1e9, "s", "off"};
    CHECK(parse(&w, "off", &v, &err) == 0 && v.choice == 0);
    CHECK(parse(&w, "900", &v, &err) == 0 && v.choice == -1 && v.num == 900);
    CHECK_EQ_INT(parse(&w, "never", &v, &err), GS_EUSAGE);
    CHECK_STR_HAS(err.msg, "or off");
}

static void check_table(const pol_param *pp, const char *owner)
{
    for (; pp && pp->name; pp++) {
        gs_param_value v;
        gs_error err;
        if (pp->spec.type == GS_P_TEXT) {
            fprintf(stderr, "    %s: parameter '%s' has no type\n", owner, pp->name);
            check_failures++;
        } else if (gs_param_parse(pp->name, pp->def, &pp->spec, &v, &err) != 0) {
            fprintf(stderr, "    %s: default of '%s' out of its own range: %s\n", owner, pp->name, err.msg);
            check_failures++;
        }
    }
}

static void every_parameter_typed(void)
{
    for (const pol_ops *const *p = pol_all(); *p; p++)
        check_table((*p)->params, (*p)->name);
    for (const pol_param *const *t = sim_core_params(); *t; t++)
        check_table(*t, "core");
}

/* A bad value of any kind is a usage error at sim_init naming the range. */
static void bad_values_refused_at_init(void)
{
    static const struct {
        const char *policy, *set, *want;
    } cases[] = {
        {"whole", "svc_util_high=banana", "--set svc_util_high='banana': expected number 0..1e+06"},
        {"whole", "svc_slo_ms=abc", "--set svc_slo_ms='abc'"},
        {"whole", "svc_scale_period_s=1e-9", "expected duration 0.1..86400 s"},
        {"whole", "svc_scale_period_s=0.000001", "expected duration 0.1..86400 s"},
        {"whole", "svc_max_batch=0x10", "expected integer 1..4096"},
        {"whole", "preempt=maybe", "expected on or off"},
        {"vgpu", "switch_cost=nan", "expected number 0..1"},
        {"vgpu+hibernate", "pause_after=soon", "or off"},
        {"dynmig", "create_s=inf", "expected duration"},
        {"vgpu", "split_count=2.5", "--set split_count='2.5': expected integer 1..1000"},
        {"vgpu", "gpu_select=best", "expected hami, bestfit, dotprod, random, fgd, fgdfit or fgdhost"},
        {"vgpu", "core_policy=soft", "expected default, force or disable"},
        {"mps", "replicas=60", "--set replicas='60': expected integer 0..48"},
        {"timeslice", "oom_retry=1001", "expected integer 0..1000"},
        {"whole+dualpod", "sleep_level=3", "expected integer 1..2"},
        {"whole+dualpod", "launchers_per_node=some", "expected integer 0..4096 or gpus"},
        {"whole+hibernate", "probe_period=0", "expected duration 0.001..1e+09 s"},
        {"whole+hibernate", "keep_memory=2", "expected integer 0..1"},
    };
    const char *trace = tu_write_tmp("id,submit,duration,gpus\na,0,1,1\n");
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        char set[64];
        snprintf(set, sizeof set, "%s", cases[i].set);
        char *eq = strchr(set, '=');
        *eq = 0;
        sim_config cfg = {.trace_path = trace, .policy = cases[i].policy, .seed = 1};
        cfg.sets[0].key = set;
        cfg.sets[0].value = eq + 1;
        cfg.nsets = 1;
        sim_cluster cl;
        gs_error err;
        CHECK_EQ_INT(sim_cluster_from_spec(&cl, "A100-SXM4-40GB:8", 8, tu_catalog(), &err), 0);
        sim s;
        CHECK_EQ_INT(tu_sim_init(&s, &cfg, tu_catalog(), &cl, NULL, &err), GS_EUSAGE);
        CHECK_STR_HAS(err.msg, cases[i].want);
        sim_free(&s);
        sim_cluster_free(&cl);
    }
}

/* A policy reads an enum by its index: the declared choices are the enum's
 * names in its order, written once (SC_SELECT_CHOICES, MIG_STRATEGY_CHOICES)
 * and named by the declaration the core checks values against. */
static void choices_are_the_enums(void)
{
    static const char *const sel[] = {"hami", "bestfit", "dotprod", "random", "fgd", "fgdfit"};
    static const int want[] = {SC_SEL_HAMI, SC_SEL_BESTFIT, SC_SEL_DOTPROD, SC_SEL_RANDOM, SC_SEL_FGD, SC_SEL_FGDFIT};
    const pol_param *gsel = NULL;
    for (const pol_param *pp = pol_find("vgpu")->params; pp->name; pp++)
        if (!strcmp(pp->name, "gpu_select"))
            gsel = pp;
    CHECK(gsel && gsel->spec.type == GS_P_ENUM && !strcmp(gsel->spec.choices, SC_SELECT_CHOICES));
    for (int i = 0; i < 6 && gsel; i++) {
        gs_param_value v;
        gs_error err;
        CHECK_EQ_INT(gs_param_parse("gpu_select", sel[i], &gsel->spec, &v, &err), 0);
        CHECK_EQ_INT(v.choice, want[i]);
    }
}

const test_case tests_param[] = {
    {"param/numbers_and_units", numbers_and_units},
    {"param/durations_enums_words", durations_enums_words},
    {"param/every_parameter_typed_default_in_range", every_parameter_typed},
    {"param/bad_values_refused_at_init", bad_values_refused_at_init},
    {"param/enum_choices_are_the_enums_in_order", choices_are_the_enums},
    {NULL, NULL},
};
