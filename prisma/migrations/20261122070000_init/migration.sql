-- CreateTable
CREATE TABLE "execution" (
    "id" UUID NOT NULL,
    "source" TEXT NOT NULL,
    "language" TEXT NOT NULL,
    "code" TEXT NOT NULL,
    "stdin" TEXT,
    "status" TEXT NOT NULL,
    "message" TEXT NOT NULL DEFAULT '',
    "compile_status" TEXT,
    "run_status" TEXT,
    "return_code" INTEGER,
    "stdout" TEXT NOT NULL DEFAULT '',
    "stderr" TEXT NOT NULL DEFAULT '',
    "output_truncated" BOOLEAN NOT NULL DEFAULT false,
    "limiter_key" TEXT,
    "requested_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "acquired_at" TIMESTAMPTZ(3),
    "finished_at" TIMESTAMPTZ(3),
    "queue_wait_ms" DOUBLE PRECISION NOT NULL DEFAULT 0,
    "compile_ms" DOUBLE PRECISION,
    "run_ms" DOUBLE PRECISION,
    "worker_id" TEXT,
    "session_id" VARCHAR(20),

    CONSTRAINT "execution_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "limiter_key" (
    "key" TEXT NOT NULL,
    "lock_namespace" INTEGER NOT NULL,
    "limit" INTEGER NOT NULL,
    "max_starts_per_second" DOUBLE PRECISION,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "limiter_key_pkey" PRIMARY KEY ("key")
);

-- CreateTable
CREATE TABLE "task" (
    "id" VARCHAR(20) NOT NULL,
    "name" TEXT NOT NULL,
    "source" TEXT NOT NULL,
    "prompt" TEXT NOT NULL,
    "language" TEXT NOT NULL,
    "setup_files" JSONB NOT NULL DEFAULT '{}',
    "tests" JSONB NOT NULL DEFAULT '[]',
    "fail_to_pass" TEXT[],
    "pass_to_pass" TEXT[],
    "session_mode" TEXT NOT NULL DEFAULT 'stateful',
    "metadata" JSONB NOT NULL DEFAULT '{}',
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "task_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "session" (
    "id" VARCHAR(20) NOT NULL,
    "task_id" VARCHAR(20) NOT NULL,
    "state" TEXT NOT NULL DEFAULT 'active',
    "session_mode" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,
    "last_action_at" TIMESTAMPTZ(3),
    "postprocessed_at" TIMESTAMPTZ(3),
    "action_count" INTEGER NOT NULL DEFAULT 0,
    "error_count" INTEGER NOT NULL DEFAULT 0,
    "reward" DOUBLE PRECISION,
    "f2p_count" INTEGER,
    "f2p_total" INTEGER,
    "p2p_count" INTEGER,
    "p2p_total" INTEGER,
    "reward_at" TIMESTAMPTZ(3),
    "reward_detail" JSONB,

    CONSTRAINT "session_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "action" (
    "id" UUID NOT NULL,
    "session_id" VARCHAR(20) NOT NULL,
    "seq" INTEGER NOT NULL,
    "content" TEXT NOT NULL,
    "code" TEXT,
    "observation" TEXT NOT NULL,
    "status" TEXT NOT NULL,
    "return_code" INTEGER,
    "duration_ms" DOUBLE PRECISION NOT NULL,
    "execution_id" UUID,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "action_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "session_event" (
    "id" UUID NOT NULL,
    "session_id" VARCHAR(20) NOT NULL,
    "level" TEXT NOT NULL,
    "route" TEXT NOT NULL,
    "message" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "session_event_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "rollout_run" (
    "id" UUID NOT NULL,
    "name" TEXT NOT NULL,
    "source_dir" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "rollout_run_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "rollout_file" (
    "id" UUID NOT NULL,
    "run_id" UUID NOT NULL,
    "name" TEXT NOT NULL,
    "step" INTEGER NOT NULL,
    "bytes_read" BIGINT NOT NULL DEFAULT 0,
    "lines_read" INTEGER NOT NULL DEFAULT 0,
    "lines_rejected" INTEGER NOT NULL DEFAULT 0,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "rollout_file_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "rollout_sample" (
    "id" UUID NOT NULL,
    "run_id" UUID NOT NULL,
    "step" INTEGER NOT NULL,
    "line" INTEGER NOT NULL,
    "request_id" TEXT,
    "input" TEXT NOT NULL,
    "output" TEXT NOT NULL,
    "gts" JSONB,
    "score" DOUBLE PRECISION,
    "extras" JSONB NOT NULL DEFAULT '{}',
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "rollout_sample_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "execution_requested_at_idx" ON "execution"("requested_at");

-- CreateIndex
CREATE INDEX "execution_status_requested_at_idx" ON "execution"("status", "requested_at");

-- CreateIndex
CREATE INDEX "execution_language_requested_at_idx" ON "execution"("language", "requested_at");

-- CreateIndex
CREATE INDEX "execution_session_id_idx" ON "execution"("session_id");

-- CreateIndex
CREATE UNIQUE INDEX "limiter_key_lock_namespace_key" ON "limiter_key"("lock_namespace");

-- CreateIndex
CREATE INDEX "task_source_idx" ON "task"("source");

-- CreateIndex
CREATE INDEX "session_task_id_idx" ON "session"("task_id");

-- CreateIndex
CREATE INDEX "session_state_created_at_idx" ON "session"("state", "created_at");

-- CreateIndex
CREATE INDEX "session_created_at_idx" ON "session"("created_at");

-- CreateIndex
CREATE INDEX "action_execution_id_idx" ON "action"("execution_id");

-- CreateIndex
CREATE UNIQUE INDEX "action_session_id_seq_key" ON "action"("session_id", "seq");

-- CreateIndex
CREATE INDEX "session_event_session_id_created_at_idx" ON "session_event"("session_id", "created_at");

-- CreateIndex
CREATE UNIQUE INDEX "rollout_run_name_key" ON "rollout_run"("name");

-- CreateIndex
CREATE UNIQUE INDEX "rollout_file_run_id_name_key" ON "rollout_file"("run_id", "name");

-- CreateIndex
CREATE INDEX "rollout_sample_run_id_step_score_idx" ON "rollout_sample"("run_id", "step", "score");

-- CreateIndex
CREATE INDEX "rollout_sample_request_id_idx" ON "rollout_sample"("request_id");

-- CreateIndex
CREATE UNIQUE INDEX "rollout_sample_run_id_step_line_key" ON "rollout_sample"("run_id", "step", "line");

-- AddForeignKey
ALTER TABLE "execution" ADD CONSTRAINT "execution_session_id_fkey" FOREIGN KEY ("session_id") REFERENCES "session"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "session" ADD CONSTRAINT "session_task_id_fkey" FOREIGN KEY ("task_id") REFERENCES "task"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "action" ADD CONSTRAINT "action_session_id_fkey" FOREIGN KEY ("session_id") REFERENCES "session"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "action" ADD CONSTRAINT "action_execution_id_fkey" FOREIGN KEY ("execution_id") REFERENCES "execution"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "session_event" ADD CONSTRAINT "session_event_session_id_fkey" FOREIGN KEY ("session_id") REFERENCES "session"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "rollout_file" ADD CONSTRAINT "rollout_file_run_id_fkey" FOREIGN KEY ("run_id") REFERENCES "rollout_run"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "rollout_sample" ADD CONSTRAINT "rollout_sample_run_id_fkey" FOREIGN KEY ("run_id") REFERENCES "rollout_run"("id") ON DELETE CASCADE ON UPDATE CASCADE;
