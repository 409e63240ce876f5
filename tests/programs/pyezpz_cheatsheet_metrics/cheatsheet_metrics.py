import ezpz

logger = ezpz.get_logger(__name__)
history = ezpz.History(
    project_name="my-project",   # optional
    backends="wandb",            # or "mlflow", "wandb,mlflow,csv", etc.
)

for step in range(100):
    loss = train_step(...)
    logger.info(history.update({"loss": loss.item()}, step=step))

history.finalize(outdir="./outputs")  # saves dataset + plots
