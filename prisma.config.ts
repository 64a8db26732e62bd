// Prisma CLI configuration. Only `prisma generate` runs here: migrations are applied by Fusebox's own offline
// runner (`fusebox db migrate`), because Prisma's schema engine is a native download that air-gapped clusters
// cannot fetch.
import { defineConfig } from 'prisma/config';

export default defineConfig({
  schema: 'prisma/schema.prisma',
  migrations: { path: 'prisma/migrations' },
});
