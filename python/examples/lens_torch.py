"""A differentiable lens optimisation in PyTorch with osculate's ray module (Torch Lens Maker).

A plano-convex lens (glass of index 1.5) focuses a fan of parallel rays. Its front surface is an
even-asphere sag at x = 0 with curvature c and conic constant k, the lens designer's variables;
its back surface is flat at x = 0.2. Rays start at x = -1, parallel to the axis, at heights
|y| <= 0.4. osculate.torch.ray_intersect_sag finds where each ray meets the front surface (with
the derivatives of the point and normal with respect to the ray and to (c, k)); Snell's law
(written here in torch) bends it; osculate.torch.ray_intersect finds the flat back surface; the
ray is bent again and carried to the image plane x = 4. The loss is the mean square height there,
the spot size; torch.autograd gives d loss / d (c, k) through every step, and Adam takes steps.

    python python/examples/lens_torch.py      (exit status 0 when the spot shrinks 10-fold)
"""

import sys

import torch

import osculate as osc
import osculate.torch as ot

INDEX = 1.5
DIAMETER = 1.0
THICKNESS = 0.2
IMAGE_X = 4.0
back = osc.Implicit.sag(0.0, DIAMETER)  # flat
back_place = osc.transform(translation=[THICKNESS, 0.0, 0.0])


def refract(direction, normal, eta):
    """Snell's law for unit rows: direction into a surface with normal (either orientation),
    eta = n_in / n_out."""
    n = normal * -torch.sign((normal * direction).sum(-1, keepdim=True))  # against the ray
    cos_i = -(n * direction).sum(-1, keepdim=True)
    sin2_t = eta**2 * (1 - cos_i**2)
    return eta * direction + (eta * cos_i - torch.sqrt(1 - sin2_t)) * n


def spot(params, heights):
    origins = torch.stack([torch.full_like(heights, -1.0), heights, torch.zeros_like(heights)], -1)
    directions = torch.zeros_like(origins)
    directions[:, 0] = 1.0
    front = ot.ray_intersect_sag(params, DIAMETER, origins, directions)
    inside = refract(directions, front["normal"], 1.0 / INDEX)
    exit_ = ot.ray_intersect(back, front["point"], inside, transform=back_place)
    out = refract(inside, exit_["normal"], INDEX)
    t = (IMAGE_X - exit_["point"][:, 0]) / out[:, 0]
    image = exit_["point"] + t[:, None] * out
    if not (bool(front["hit"].all()) and bool(exit_["hit"].all())):
        raise RuntimeError("a ray missed the lens")
    return (image[:, 1] ** 2).mean()


def main():
    heights = torch.linspace(-0.4, 0.4, 21, dtype=torch.float64)
    params = torch.tensor([0.3, 0.0], dtype=torch.float64, requires_grad=True)  # (c, k)
    optimiser = torch.optim.Adam([params], lr=0.02)
    first = None
    for step in range(1, 151):
        optimiser.zero_grad()
        loss = spot(params, heights)
        loss.backward()
        if first is None:
            first = loss.item()
            print("start: c = %.4f, k = %.4f, rms spot %.5f, d loss / d (c, k) = %s"
                  % (params[0].item(), params[1].item(), loss.item() ** 0.5, params.grad.numpy()))
        optimiser.step()
        if step % 25 == 0:
            print("step %3d: c = %.4f, k = %+.4f, rms spot %.6f" % (step, params[0].item(),
                                                                  params[1].item(), loss.item() ** 0.5))
    last = spot(params, heights).item()
    # a thin plano-convex lens focuses at 1 / ((n - 1) c) behind it
    print("focal length of the paraxial thin lens 1 / ((n - 1) c) = %.3f (image plane %.1f behind)"
          % (1 / ((INDEX - 1) * params[0].item()), IMAGE_X - THICKNESS))
    return 0 if last < first / 100 else 1  # rms spot 10-fold smaller


if __name__ == "__main__":
    sys.exit(main())
