import { Injectable, OnApplicationShutdown, OnModuleInit } from '@nestjs/common';
import { Pool } from 'pg';

const INSERT =
  'INSERT INTO stripe_events (event_id, type, body, received_at) VALUES ($1, $2, $3, $4) ' +
  'ON CONFLICT (event_id) DO NOTHING';

/** The app's own table of received Stripe events, one row per event id. */
@Injectable()
export class StripeEventStore implements OnModuleInit, OnApplicationShutdown {
  private readonly pool = new Pool({
    connectionString: process.env.DATABASE_URL,
    max: Number(process.env.POOL_SIZE ?? 10),
  });

  async onModuleInit(): Promise<void> {
    await this.pool.query(
      'CREATE TABLE IF NOT EXISTS stripe_events (event_id varchar(255) PRIMARY KEY, ' +
        'type varchar(255) NOT NULL, body text NOT NULL, received_at timestamptz NOT NULL)',
    );
  }

  /** Stores the event once; a re-delivery of a stored event changes nothing. */
  async insert(eventId: string, type: string, body: string): Promise<void> {
    await this.pool.query(INSERT, [eventId, type, body, new Date()]);
  }

  async onApplicationShutdown(): Promise<void> {
    await this.pool.end();
  }
}
