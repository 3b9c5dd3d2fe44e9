/* sim_hw.h - the card decides: how fast a placement runs a job's work.
 *
 * A job's `duration` is its time alone on a reference card (its `ref_gpu`
 * column, else the run's ref_gpu parameter). Placed elsewhere its work
 * drains at speed = time on the reference / time here, computed once per
 * placement (sim_job_start), never per event:
 *   - `speedup` (MODEL:factor|...) given and both cards listed: the ratio of
 *     their factors (a measured throughput table, as Gavel uses);
 *   - else the roofline mix: t_here / t_ref = (1 - b) x TFLOPS_ref / (TFLOPS_here x c)
 *                                             + b x GBps_ref / (GBps_here x m)
 *     with b = mem_bound, the share of the job's time bound by memory
 *     bandwidth, and c, m the compute and bandwidth shares of the card the
 *     placement holds (1 and 1 for whole cards; a MIG instance's share of
 *     the SMs and of the memory slices). A speedup-table ratio is multiplied
 *     by the MIG instance's roofline share the same way.
 * Sessions hold for wall-clock time and are not scaled; service replicas
 * scale their own per-token times (service/svc_hw.c). A job spanning cards runs
 * at its slowest card: all of its cards sit on one node of one model, so the
 * node's model decides.
 * SPDX-License-Identifier: MIT */
#ifndef GPUSIM_SIM_HW_H
#define GPUSIM_SIM_HW_H

#include "../models/gpu/gpu_model.h"
#include "sim_module.h"

extern const sim_module hw_module;
extern const pol_param hw_params[];

/* The speed factor of a job placed on model m holding compute share c and
 * bandwidth share mb of one card (1, 1 for whole cards); records the
 * figures it relied on. 1 when the run has no hardware layer. */
double sim_hw_speed(sim *s, const job *j, const gpu_model *m, double c, double mb);
/* A MIG profile's compute share (its SMs over the full-card instance's; the
 * compute slices' share where SMs are unknown) and bandwidth share (memory
 * slices over the card's). */
void sim_hw_mig_shares(const mig_table *t, const mig_profile *p, double *c, double *mb);
/* Whether MIG instances run at their share of the card (mig_speed=share,
 * the default; also true without the layer). */
bool sim_hw_slice_share(const sim *s);
/* The run's default reference model (ref_gpu); NULL without the layer. */
const gpu_model *sim_hw_ref(const sim *s);
/* Marks model m's speed figures as relied on (the report lists them). */
void sim_hw_note(sim *s, const gpu_model *m, bool tflops, bool bw);
/* The roofline time ratio t_here / t_ref for a share b bound by bandwidth
 * (exposed for the service layer and tests). */
double sim_hw_time_ratio(const gpu_model *ref, const gpu_model *m, double b, double c, double mb);

#endif
