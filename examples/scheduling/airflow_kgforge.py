"""Airflow DAG: kgforge's nightly build (BashOperator).

validate checks the pipeline file first (exit 2 when it is invalid: the DAG
stops before any work), build runs it, diff prints what last night changed.
kgforge's exit codes: 0 ok, 1 failed (or a quality gate failed), 2 bad
configuration, 3 partial (some sources rejected), 4 output locked. A partial
build (3) is published and counts as success here, but is logged; set
skip_on_exit_code=3 instead to mark it skipped for a person to look at.
Secrets (NEO4J_PASSWORD) come from an Airflow connection or variable, never
from the pipeline file: it reads ${VAR} from the environment.
"""

from datetime import datetime, timedelta

from airflow import DAG
from airflow.operators.bash import BashOperator

PIPELINE = "/srv/kgforge/pipelines/nightly.yaml"
OUT = "/srv/kgforge/out"

ENV = {
    "KGFORGE_CACHE_DIR": "/srv/kgforge/cache",
    "OLLAMA_HOST": "127.0.0.1:11434",
    "NEO4J_URI": "bolt://neo4j:7687",
    "NEO4J_USERNAME": "neo4j",
    "NEO4J_PASSWORD": "{{ var.value.neo4j_password }}",
    "PATH": "/usr/local/bin:/usr/bin:/bin",
}

with DAG(
    dag_id="kgforge_nightly",
    schedule="15 2 * * *",
    start_date=datetime(2026, 1, 1),
    catchup=False,
    max_active_runs=1,  # two builds into one output: the second exits 4
    default_args={"retries": 1, "retry_delay": timedelta(minutes=10)},
    tags=["kgforge"],
) as dag:
    validate = BashOperator(
        task_id="validate",
        bash_command="kgforge validate /srv/kgforge/pipelines/nightly.yaml",
        env=ENV,
    )
    build = BashOperator(
        task_id="build",
        bash_command=(
            "kgforge build --pipeline /srv/kgforge/pipelines/nightly.yaml --keep 7 --log-format json --metrics /srv/kgforge/metrics/kgforge.prom"
            "; rc=$?; if [ $rc -eq 3 ]; then echo 'kgforge: partial build, see the run report'; exit 0; fi; exit $rc"
        ),
        env=ENV,
        execution_timeout=timedelta(hours=4),
    )
    changes = BashOperator(
        task_id="changes",
        # the bundle before latest, by build id (ids sort by time); exit 1
        # means the graphs differ, which is the news, not a failure
        bash_command=(
            "PREV=$(ls -d /srv/kgforge/out/2*/ | tail -n 2 | head -n 1)"
            "; kgforge diff $PREV /srv/kgforge/out/latest --limit 50 || [ $? -eq 1 ]"
        ),
        env=ENV,
    )
    validate >> build >> changes
