-- Search tasks: corpora imported from Search-R1's JSONL format, their passages, and a record of /retrieve calls.

-- CreateTable
CREATE TABLE "retrieval_corpus" (
    "id" UUID NOT NULL,
    "name" TEXT NOT NULL,
    "source_path" TEXT NOT NULL,
    "bytes_read" BIGINT NOT NULL DEFAULT 0,
    "lines_read" INTEGER NOT NULL DEFAULT 0,
    "lines_rejected" INTEGER NOT NULL DEFAULT 0,
    "document_count" INTEGER NOT NULL DEFAULT 0,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "retrieval_corpus_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "retrieval_document" (
    "corpus_id" UUID NOT NULL,
    "line" INTEGER NOT NULL,
    "doc_id" TEXT NOT NULL,
    "contents" TEXT NOT NULL,

    CONSTRAINT "retrieval_document_pkey" PRIMARY KEY ("corpus_id","line")
);

-- CreateTable
CREATE TABLE "retrieval_call" (
    "id" UUID NOT NULL,
    "corpus_id" UUID,
    "corpus_name" TEXT NOT NULL,
    "queries" JSONB NOT NULL,
    "topk" INTEGER NOT NULL,
    "status" INTEGER NOT NULL,
    "error" TEXT,
    "results" JSONB,
    "duration_ms" DOUBLE PRECISION NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "retrieval_call_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "retrieval_corpus_name_key" ON "retrieval_corpus"("name");

-- CreateIndex
CREATE INDEX "retrieval_call_created_at_idx" ON "retrieval_call"("created_at");

-- AddForeignKey
ALTER TABLE "retrieval_document" ADD CONSTRAINT "retrieval_document_corpus_id_fkey" FOREIGN KEY ("corpus_id") REFERENCES "retrieval_corpus"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "retrieval_call" ADD CONSTRAINT "retrieval_call_corpus_id_fkey" FOREIGN KEY ("corpus_id") REFERENCES "retrieval_corpus"("id") ON DELETE SET NULL ON UPDATE CASCADE;
