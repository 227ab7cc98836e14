import { Column, Entity, PrimaryGeneratedColumn } from 'typeorm';

/** The shop's own table: `synchronize: true` creates it, and leaves the package's tables alone. */
@Entity({ name: 'shipments' })
export class Shipment {
  @PrimaryGeneratedColumn()
  id!: number;

  @Column({ type: 'varchar', length: 255, unique: true })
  eventId!: string;

  @Column({ type: 'varchar', length: 255, nullable: true })
  paymentRef!: string | null;
}
