"""Stand-ins for verl.trainer.main_ppo, chosen with training.module; the tests put this package
where the bucket's verl source goes (storage.verlDir, on the job's PYTHONPATH)."""
