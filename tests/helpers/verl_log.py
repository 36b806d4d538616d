"""A job log as verl prints it through Ray, shared by the job verbs' tests."""

# As verl's console logger prints them inside the TaskRunner actor, Ray's prefix and colours included;
# step 2 arrives twice (Ray can forward a line more than once), step 3 comes from numpy 2.
ACTOR = "\x1b[36m(TaskRunner pid=71)\x1b[0m "  # Ray colours the prefix

LOG = f"""\
2026-12-02 19:07:32,459\tINFO job_manager.py:531 -- Runtime env is setting up.
preflight: model, data, checkpoints and GPUs are ready
{ACTOR}step:1 - critic/score/mean:0.05 - response_length/mean:203.0 - timing_s/step:10.5
{ACTOR}step:2 - critic/score/mean:0.1 - response_length/mean:206.0 - timing_s/step:9.5
{ACTOR}step:2 - critic/score/mean:0.1 - response_length/mean:206.0 - timing_s/step:9.5
(TaskRunner pid=71) Training Progress:   5%|▌         | 3/58 [00:31<09:37, 10.5s/it]
(TaskRunner pid=71) step:3 - critic/score/mean:np.float64(0.125) - response_length/mean:np.float64(211.5) - \
training/epoch:np.int64(0) - actor/entropy:nan - val/done:True
a line that mentions step:4 - x:1 in passing
"""
