/**
 * A first-in first-out list with O(1) shift. Stable files of a big drop wait here to be taken in,
 * a few at a time: a promise and closures per waiting file grew the engine's memory with the size
 * of the drop, and Array#shift on a list of 50,000 moves all of them every time.
 */
export class Fifo<T> {
  private items: (T | undefined)[] = [];
  private head = 0;

  get size(): number {
    return this.items.length - this.head;
  }

  push(item: T): void {
    this.items.push(item);
  }

  shift(): T | undefined {
    if (this.head >= this.items.length) return undefined;
    const item = this.items[this.head];
    this.items[this.head++] = undefined;
    // Drop the consumed front now and then, so memory follows what is still waiting.
    if (this.head >= 1024 && this.head * 2 >= this.items.length) {
      this.items = this.items.slice(this.head);
      this.head = 0;
    }
    return item;
  }

  clear(): void {
    this.items = [];
    this.head = 0;
  }
}
